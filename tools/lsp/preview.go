package lsp

import "github.com/chatls/chatls/tools"

// The previews of the LSP tools (SPEC §3): the file, and the position.

func pathPreview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	return path
}

func symbolsPreview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	q, _ := tools.StringArg(in, "query")
	switch {
	case q == "":
		return path
	case path == "":
		return "query " + q
	}
	return path + "  query " + q
}

func positionPreview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	line, _ := tools.NumberArg(in, "line")
	col, _ := tools.NumberArg(in, "column")
	return path + ":" + tools.FormatNumber(line) + ":" + tools.FormatNumber(col)
}

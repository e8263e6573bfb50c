package builtin

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/chatls/chatls/tools"
)

// The previews of the git tools (SPEC §3), and which of them only look.

func always(map[string]any) bool { return true }

// listsBranches: git_branch without create only lists.
func listsBranches(in map[string]any) bool { return in["create"] != true }

func pathRefPreview(in map[string]any) string {
	path, _ := tools.StringArg(in, "path")
	ref, _ := tools.StringArg(in, "ref")
	return previewParts(path, ref)
}

func branchPreview(in map[string]any) string {
	if c, _ := in["create"].(bool); !c {
		return "list"
	}
	name, _ := tools.StringArg(in, "name")
	from, _ := tools.StringArg(in, "from")
	if from != "" {
		from = "from " + from
	}
	return previewParts("create "+name, from)
}

func commitPreview(in map[string]any) string {
	msg, _ := tools.StringArg(in, "message")
	return previewParts(strconv.Quote(firstLine(msg)), strings.Join(stringList(in["files"]), ", "))
}

func pushPreview(in map[string]any) string {
	remote, _ := tools.StringArg(in, "remote")
	branch, _ := tools.StringArg(in, "branch")
	force := ""
	if f, _ := in["force"].(bool); f {
		force = "(force-with-lease)"
	}
	return previewParts(cmp.Or(remote, "origin")+" "+cmp.Or(branch, "(current branch)"), force)
}

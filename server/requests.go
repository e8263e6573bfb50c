package server

import (
	"context"
	"encoding/json"
)

// requestHandler answers one request on the snapshot captured at dispatch.
type requestHandler func(s *Server, ctx context.Context, params *json.RawMessage, snap *snapshot) (any, error)

// requestHandlers maps LSP methods to handlers; anything else is MethodNotFound.
var requestHandlers map[string]requestHandler

func init() {
	requestHandlers = map[string]requestHandler{
		"textDocument/inlayHint":                 (*Server).inlayHints,
		"textDocument/codeAction":                (*Server).codeActions,
		"textDocument/hover":                     (*Server).hover,
		"workspace/executeCommand":               (*Server).executeCommand,
		"textDocument/documentSymbol":            (*Server).documentSymbols,
		"textDocument/foldingRange":              (*Server).foldingRanges,
		"textDocument/selectionRange":            (*Server).selectionRanges,
		"textDocument/completion":                (*Server).completion,
		"textDocument/documentLink":              (*Server).documentLinks,
		"textDocument/codeLens":                  (*Server).codeLenses,
		"textDocument/semanticTokens/full":       (*Server).semanticTokensFull,
		"textDocument/semanticTokens/full/delta": (*Server).semanticTokensDelta,
	}
}

// errNotOpen answers requests about documents the client never opened.
func errNotOpen() error {
	return invalidParams(errString("the document is not open: send textDocument/didOpen first"))
}

type errString string

func (e errString) Error() string { return string(e) }

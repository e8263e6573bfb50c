package server

import (
	"context"
	"encoding/json"
)

// requestHandler answers one request on the snapshot captured at dispatch.
type requestHandler func(s *Server, ctx context.Context, params *json.RawMessage, snap *snapshot) (any, error)

// onDocument adapts a handler of a request about an open document: it
// decodes the params (InvalidParams when they don't fit P) and refuses
// documents the client never opened.
func onDocument[P, R any](h func(s *Server, ctx context.Context, p P, snap *snapshot) (R, error)) requestHandler {
	return func(s *Server, ctx context.Context, raw *json.RawMessage, snap *snapshot) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		if snap == nil {
			if s.followedFile(raw) {
				return nil, nil // another file of the editor's: nothing to say about it
			}
			return nil, errNotOpen()
		}
		return h(s, ctx, p, snap)
	}
}

// withParams adapts a handler that does not need an open document.
func withParams[P, R any](h func(s *Server, ctx context.Context, p P) (R, error)) requestHandler {
	return func(s *Server, ctx context.Context, raw *json.RawMessage, _ *snapshot) (any, error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		return h(s, ctx, p)
	}
}

// requestHandlers maps LSP methods to handlers; anything else is
// MethodNotFound. initialize and shutdown are the dispatcher's own.
func requestHandlers() map[string]requestHandler {
	return map[string]requestHandler{
		"textDocument/inlayHint":                 onDocument((*Server).inlayHints),
		"textDocument/codeAction":                onDocument((*Server).codeActions),
		"textDocument/hover":                     onDocument((*Server).hover),
		"workspace/executeCommand":               withParams((*Server).executeCommand),
		"textDocument/documentSymbol":            onDocument((*Server).documentSymbols),
		"textDocument/foldingRange":              onDocument((*Server).foldingRanges),
		"textDocument/selectionRange":            onDocument((*Server).selectionRanges),
		"textDocument/completion":                onDocument((*Server).completion),
		"textDocument/documentLink":              onDocument((*Server).documentLinks),
		"textDocument/codeLens":                  onDocument((*Server).codeLenses),
		"textDocument/semanticTokens/full":       onDocument((*Server).semanticTokensFull),
		"textDocument/semanticTokens/full/delta": onDocument((*Server).semanticTokensDelta),
	}
}

// followedFile says the request is about an open file that is not a
// conversation (the session follows it for rewinds).
func (s *Server) followedFile(raw *json.RawMessage) bool {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	return raw != nil && json.Unmarshal(*raw, &p) == nil && p.TextDocument.URI != "" && s.sess.IsFile(p.TextDocument.URI)
}

// errNotOpen answers requests about documents the client never opened.
func errNotOpen() error {
	return invalidParams(errString("the document is not open: send textDocument/didOpen first"))
}

type errString string

func (e errString) Error() string { return string(e) }

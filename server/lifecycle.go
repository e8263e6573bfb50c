package server

import (
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/session"
	"github.com/chatls/chatls/surface"
)

// Commands the server executes (SPEC §3).
var serverCommands = []string{
	"chatls.advance", "chatls.run", "chatls.cancel", "chatls.alwaysAllow", "chatls.explain", "chatls.listTools",
	"chatls.approve", "chatls.reject", // code lenses can only carry commands
	"chatls.compact", "chatls.trim", // the context window's code actions (SPEC §11)
	session.CommandRewind, session.CommandUndoRewind, session.CommandBranch, // the rewind actions' (SPEC §10)
	session.CommandAgentOption, // an agent's own permission options (SPEC §12)
}

func (s *Server) initialize(raw *json.RawMessage) (any, error) {
	var p lspext.InitializeParams
	if raw != nil {
		if err := json.Unmarshal(*raw, &p); err != nil {
			return nil, invalidParams(err)
		}
	}
	enc, encName := negotiateEncoding(p.Capabilities)
	roots := workspaceRoots(p)
	s.mu.Lock()
	if s.initialized {
		s.mu.Unlock()
		return nil, invalidParams(errAlreadyInitialized)
	}
	s.caps = featuresOf(p.Capabilities)
	// ALE advertises no applyEdit, applies edits all the same and never
	// answers: waiting for its replies would stall every edit.
	s.silent.Store(p.Capabilities.Workspace == nil || !p.Capabilities.Workspace.ApplyEdit)
	s.enc, s.encName = enc, encName
	s.initialized = true
	s.mu.Unlock()
	s.sess.Start(roots, enc, p.InitializationOptions)

	return lspext.InitializeResult{
		Capabilities: s.capabilities(encName),
		ServerInfo:   &lspext.ServerInfo{Name: "chatls", Version: s.opts.Version},
	}, nil
}

type initError string

func (e initError) Error() string { return string(e) }

const errAlreadyInitialized = initError("initialize was already called")

// negotiateEncoding picks utf-8 or utf-32 when the client offers them
// (cheaper: no utf-16 counting), else utf-16, the LSP default.
func negotiateEncoding(caps lspext.ClientCapabilities) (chatdoc.Encoding, string) {
	if caps.General != nil {
		for _, e := range caps.General.PositionEncodings {
			switch e {
			case lspext.EncodingUTF8:
				return chatdoc.UTF8, e
			case lspext.EncodingUTF32:
				return chatdoc.UTF32, e
			}
		}
	}
	return chatdoc.UTF16, lspext.EncodingUTF16
}

func workspaceRoots(p lspext.InitializeParams) []string {
	var roots []string
	for _, f := range p.WorkspaceFolders {
		if path := uriToPath(f.URI); path != "" {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 {
		if path := uriToPath(p.RootURI); path != "" {
			roots = append(roots, path)
		} else if p.RootPath != "" {
			roots = append(roots, p.RootPath)
		}
	}
	return roots
}

func (s *Server) capabilities(encName string) lspext.ServerCapabilities {
	caps := protocol.ServerCapabilities{
		TextDocumentSync: protocol.TextDocumentSyncOptions{
			OpenClose: true,
			Change:    protocol.TextDocumentSyncKindIncremental,
			Save:      &protocol.SaveOptions{IncludeText: false},
		},
		HoverProvider: true,
		CodeActionProvider: protocol.CodeActionOptions{
			CodeActionKinds: []protocol.CodeActionKind{protocol.QuickFix, protocol.Source, "source.chatls"},
		},
		ExecuteCommandProvider: &protocol.ExecuteCommandOptions{Commands: serverCommands},
		DocumentSymbolProvider: true,
		FoldingRangeProvider:   true,
		SelectionRangeProvider: true,
		CompletionProvider: &protocol.CompletionOptions{
			TriggerCharacters: surface.CompletionTriggerCharacters,
		},
		CodeLensProvider:     &protocol.CodeLensOptions{},
		DocumentLinkProvider: &protocol.DocumentLinkOptions{},
		SemanticTokensProvider: map[string]any{
			"legend": surface.SemanticTokensLegend(),
			"full":   map[string]any{"delta": true},
		},
	}
	return lspext.ServerCapabilities{ServerCapabilities: caps, PositionEncoding: encName, InlayHintProvider: true}
}

func (s *Server) afterInitialized() { s.pullSettings() }

func (s *Server) shutdown() (any, error) {
	s.mu.Lock()
	s.shuttingDown = true
	s.mu.Unlock()
	return nil, nil
}

package server

import (
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/custom"
)

// Commands the server executes (SPEC §3).
var serverCommands = []string{
	"chatls.advance", "chatls.run", "chatls.cancel", "chatls.alwaysAllow", "chatls.explain", "chatls.listTools",
	"chatls.approve", "chatls.reject", // code lenses can only carry commands
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
	s.caps = p.Capabilities
	s.enc, s.encName = enc, encName
	s.roots = roots
	s.initialized = true
	s.mu.Unlock()

	s.settings.setInitOptions(p.InitializationOptions)
	userPath := s.opts.UserConfigPath
	if userPath == "" {
		userPath = config.UserConfigPath()
	}
	s.settings.loadFiles(userPath, roots)
	s.openState()
	s.startToolSources()
	s.checkSandbox()

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

// openState opens the execution journal and the decision log.
func (s *Server) openState() {
	dir := s.opts.StateDir
	if dir == "" {
		dir = config.StateDir()
	}
	j, err := journal.Open(dir)
	if err != nil {
		// Without a journal "at most once across restarts" cannot hold: refuse to run.
		s.log.Error("execution journal unavailable; tools will not run", zap.Error(err))
		s.showMessage(messageError, "chatls: "+err.Error()+"; tools will not run until this is fixed")
	} else {
		s.journal = j
	}
	log, err := approval.OpenDecisionLog(dir + "/decisions.jsonl")
	if err != nil {
		s.log.Warn("decision log unavailable", zap.Error(err))
	} else {
		s.decisions = log
	}
}

// startToolSources starts plugin and MCP sources from the trusted settings;
// requests that need tool definitions wait for them (SPEC §5 (c)).
func (s *Server) startToolSources() {
	s.registry.OnChange(s.onSettingsChanged)
	if s.opts.NoCustomTools {
		return
	}
	s.settings.mu.Lock()
	user := overlay(s.settings.userLayers()...)
	s.settings.mu.Unlock()
	s.sources = custom.Sources(user, s.log)
	custom.Register(s.registry, s.sources, s.settings.defaultTimeout())
}

// checkSandbox probes bubblewrap once when the sandbox is enabled. If it is
// missing, chatls says so once and bash calls are asked for (SPEC §5).
func (s *Server) checkSandbox() {
	eff := s.settings.effective()
	if !eff.Sandbox.Enabled {
		return
	}
	if err := tools.SandboxAvailable(eff.Sandbox.Bwrap); err != nil {
		s.mu.Lock()
		s.sandboxProblem = err.Error()
		s.mu.Unlock()
		s.showMessage(messageWarning, "chatls: the sandbox is enabled but bubblewrap cannot run ("+err.Error()+"); every bash call will ask for approval")
	}
}

func (s *Server) afterInitialized() {
	s.settings.pull()
	s.onSettingsChanged()
}

func (s *Server) shutdown() (any, error) {
	s.mu.Lock()
	s.shuttingDown = true
	s.mu.Unlock()
	return nil, nil
}

package server

import (
	"encoding/json"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/provider/usagelog"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/server/surface"
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
	s.caps = featuresOf(p.Capabilities)
	// ALE advertises no applyEdit, applies edits all the same and never
	// answers: waiting for its replies would stall every edit.
	s.silent.Store(p.Capabilities.Workspace == nil || !p.Capabilities.Workspace.ApplyEdit)
	s.enc, s.encName = enc, encName
	s.roots = roots
	s.initialized = true
	s.mu.Unlock()

	userPath := s.opts.UserConfigPath
	if userPath == "" {
		userPath = config.UserConfigPath()
	}
	s.settings.initialLoad(userPath, roots, p.InitializationOptions)
	s.openState()
	s.startToolSources()

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

// stateDir is $XDG_STATE_HOME/chatls or the test's.
func (s *Server) stateDir() string {
	if s.opts.StateDir != "" {
		return s.opts.StateDir
	}
	return config.StateDir()
}

// openState opens the execution journal and the decision log.
func (s *Server) openState() {
	dir := s.stateDir()
	j, err := journal.Open(dir)
	if err != nil {
		// Without a journal "at most once across restarts" cannot hold: refuse to run.
		s.log.Error("execution journal unavailable; tools will not run", zap.Error(err))
		s.showMessage(lspext.MessageError, "chatls: "+err.Error()+"; tools will not run until this is fixed")
	} else {
		s.journal = j
	}
	log, err := approval.OpenDecisionLog(dir + "/decisions.jsonl")
	if err != nil {
		s.log.Warn("decision log unavailable", zap.Error(err))
	} else {
		s.decisions = log
	}
	s.usage = usagelog.Open(dir)
	s.executor = &execution.Executor{Journal: s.journal, Decisions: s.decisions, Runner: s.runner, Slots: s.settings.semaphore, Log: s.log}
}

// startToolSources starts plugin and MCP sources from the trusted settings;
// requests that need tool definitions wait for them (SPEC §5 (c)).
func (s *Server) startToolSources() {
	s.registry.OnChange(s.refreshDocuments)
	// A source that finished loading (or timed out) decides whether the
	// tools a document waits for exist: its diagnostics and hints change,
	// and autopilot goes on.
	s.toolSet.OnChange(s.toolSourcesChanged)
	s.applySettings()
}

// toolSourcesChanged refreshes what documents show and wakes their
// autopilot after a tool source finished loading or was reconfigured.
func (s *Server) toolSourcesChanged() {
	s.refreshDocuments()
	docs := s.openDocs()
	for _, ds := range docs {
		ds.wake()
	}
}

// reconcileToolSources makes the running plugin and MCP sources follow the
// trusted settings.
func (s *Server) reconcileToolSources() {
	layers, res, _ := s.settings.store.Current()
	s.tools.Reconcile(layers, res.Trusted)
}

// updateBuiltins rebuilds the built-ins when tools.web_fetch.allowHosts
// changed. It runs right after each commit of new settings, not later with
// applySettings, so that a call decided under the new settings practically
// never starts with the old hosts.
func (s *Server) updateBuiltins() {
	s.tools.UseBuiltins(s.settings.effective().WebFetchAllowHosts)
}

// checkSandbox probes bubblewrap for every configuration that wants the
// sandbox (sandbox.enabled "auto", the default, or true), again after each
// settings change, and tells the user once about each problem (SPEC §5).
func (s *Server) checkSandbox() {
	var bwraps []string
	for _, eff := range s.settings.store.All() {
		if eff.Sandbox.Enabled {
			bwraps = append(bwraps, eff.Sandbox.Bwrap)
		}
	}
	for _, p := range s.sandbox.Check(bwraps) {
		s.showMessage(lspext.MessageWarning, sandboxUnavailableMessage(p))
	}
}

// sandboxUnavailableMessage is SPEC §5's message, said once per problem.
func sandboxUnavailableMessage(problem string) string {
	return "chatls: the sandbox is unavailable here (" + problem + "); bash calls now need a rule or your approval"
}

// sandboxProblem is why bubblewrap cannot run for these settings, or ""
// (also when the sandbox is off).
func (s *Server) sandboxProblem(eff config.Effective) string {
	if !eff.Sandbox.Enabled {
		return ""
	}
	return s.sandbox.Problem(eff.Sandbox.Bwrap)
}

// sandboxProblemFor is why bubblewrap cannot run although the settings of
// the document at path want the sandbox, or "".
func (s *Server) sandboxProblemFor(path string) string {
	return s.sandboxProblem(s.settings.effectiveFor(path))
}

// sandboxActiveFor says whether bash of the document at path runs inside
// bubblewrap: its settings want the sandbox and bubblewrap works.
func (s *Server) sandboxActiveFor(path string) bool {
	return s.settings.effectiveFor(path).Sandbox.Enabled && s.sandboxProblemFor(path) == ""
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

package session

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/tools"
)

// decisionTimeout bounds one policy decision (external resolvers included).
const decisionTimeout = 5 * time.Second

// decide asks the policy about one tool use of a document. logSource, when
// set, records the decision in the decision log under that source.
func (s *Session) decide(ds *Doc, doc *chatdoc.Document, u *chatdoc.ToolUse, logSource string) approval.Verdict {
	engine, err := s.engineFor(ds, doc)
	if err != nil {
		return s.policyErrorVerdict(err)
	}
	ctx, cancel := context.WithTimeout(s.baseCtx, decisionTimeout)
	defer cancel()
	v := engine.Decide(ctx, approval.Call{
		ID: u.ID, Tool: u.Name, Input: u.ToolInput(),
		DocPath: ds.path, DocURI: ds.uri, WorkspaceRoot: s.workspaceRoot(ds.path),
	})
	// With sandbox.enabled = true and bubblewrap broken, a bash call fails
	// unless the user runs it outside: nothing approves it by itself. With
	// "auto" the rules still apply (SPEC §5).
	if s.settings.effectiveFor(ds.path).Sandbox.Required {
		v = v.SandboxUnavailable(u.Name, s.sandboxProblemFor(ds.path))
	}
	if s.heldByLoopGuard(ds, u.ID) {
		v = loopGuarded(v)
	}
	if logSource != "" && s.decisions != nil {
		_ = s.decisions.Write(v.LogEntry(approval.LogEntry{
			Time: time.Now(), Document: ds.uri, ToolID: u.ID, Tool: u.Name,
			InputHash: cycle.InputHash(u), Source: logSource,
			Target: tools.RunsOn(s.targetFor(ds, doc), u.Name, true),
		}))
	}
	return v
}

// newEngine builds policy engines; tests replace it to make building fail.
var newEngine = approval.NewEngine

// brokenSourceError is a configuration source broken since the start: the
// user was told when it failed to load (settingsState.reject).
type brokenSourceError struct{ error }

func (e brokenSourceError) Unwrap() error { return e.error }

// policyErrorVerdict is the decision when no policy engine can be built:
// every call asks, and the trace says why (resolver "config", as
// `chatls policy check` answers). A build failure is shown to the user once
// per settings generation; a source broken since the start was shown when
// it failed to load.
func (s *Session) policyErrorVerdict(err error) approval.Verdict {
	reason := "the policy could not be built: " + err.Error()
	if broken, ok := err.(brokenSourceError); ok {
		reason = "the configuration could not be loaded, so every call asks: " + broken.error.Error()
	} else {
		st := s.settings
		_, _, gen := st.store.Current()
		st.mu.Lock()
		tell := st.errorShown != gen
		st.errorShown = gen
		st.mu.Unlock()
		if tell {
			s.log.Warn("policy unavailable; asking the user", zap.Error(err))
			s.showMessage(MessageError, "chatls: "+reason+" (every tool call asks for approval until this is fixed)")
		}
	}
	return approval.Verdict{Decision: approval.RequireApproval, Reason: reason,
		Steps: []approval.Step{{Resolver: approval.ConfigErrorResolver, Priority: 1000, Decision: approval.RequireApproval, Reason: reason}}}
}

// engineFor builds (or reuses) the policy engine for a document: the engine
// depends on the settings generation and the document's frontmatter.
func (s *Session) engineFor(ds *Doc, doc *chatdoc.Document) (*approval.Engine, error) {
	st := s.settings
	fmKey := ""
	if fm := doc.Frontmatter; fm != nil {
		fmKey = fm.Language + "\x00" + fm.Code // its options and error follow from these
	}
	ops, fmErr := approval.FromFrontmatter(doc.Frontmatter)
	root := s.workspaceRoot(ds.path)
	userErr, wsErr := st.store.Broken(root)
	if userErr != nil {
		return nil, brokenSourceError{userErr}
	}
	wsError := ""
	if wsErr != nil {
		// A broken .chatls.toml: the user's own rules still decide (a user
		// deny still denies); everything else asks.
		wsError = wsErr.Error()
	}
	sandboxActive := s.sandboxActiveFor(ds.path)
	layers, _, gen := st.store.Current()
	var targetPolicy *approval.TargetPolicy
	if t := s.targetFor(ds, doc); t.Remote() {
		ts := s.settings.effectiveFor(ds.path).Targets[t.Name]
		targetPolicy = &approval.TargetPolicy{Name: t.Name, Root: ts.Root, AutoApprove: ts.AutoApprove, Deny: ts.Deny}
	}
	key := fmt.Sprintf("%s\x00%s\x00%s\x00%t\x00%s\x00%v", root, ds.path, fmKey, sandboxActive, wsError, targetPolicy)
	st.mu.Lock()
	if st.engineGen != gen || len(st.engines) > 64 {
		st.engines, st.engineGen = map[string]*approval.Engine{}, gen
	}
	e := st.engines[key]
	st.mu.Unlock()
	if e != nil {
		return e, nil
	}
	engine, err := newEngine(approval.Sources{
		User:             layers.User(),
		UserFile:         layers.UserPath,
		Workspace:        layers.Workspaces[root],
		WorkspaceFile:    filepath.Join(root, config.WorkspaceFile),
		Frontmatter:      ops,
		FrontmatterError: fmErr,
		WorkspaceError:   wsError,
		DocPath:          ds.path,
		SandboxActive:    sandboxActive,
		Target:           targetPolicy,
	}, s.log)
	if err != nil {
		return nil, err
	}
	st.mu.Lock()
	if st.engineGen == gen {
		st.engines[key] = engine
	}
	st.mu.Unlock()
	return engine, nil
}

// onSettingsChanged applies new settings: tool sources, built-in options and
// the sandbox probe follow them; documents get new diagnostics and hints.
// The next decisions use the new policy; nothing already decided is
// re-categorized (docs/policy.md "Live reload").
func (s *Session) onSettingsChanged() {
	s.applySettings()
	s.refreshDocuments()
}

// applySettings makes the runtime follow the settings; serialized, since
// file watches, the editor and chatls.alwaysAllow may change them at once.
func (s *Session) applySettings() {
	st := s.settings
	st.apply.Lock()
	defer st.apply.Unlock()
	s.reconcileToolSources()
	s.checkSandbox()
}

// refreshDocuments recomputes what documents show after a change of
// settings or tool definitions.
func (s *Session) refreshDocuments() {
	s.settings.mu.Lock()
	s.settings.engines = map[string]*approval.Engine{}
	s.settings.mu.Unlock()
	docs := s.openDocs()
	for _, ds := range docs {
		s.scheduleDiagnostics(ds)
	}
	s.editor.RefreshHints()
}

// workspaceRoot is the workspace folder holding path, else its directory.
func (s *Session) workspaceRoot(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.workspaceRootLocked(path)
}

// workspaceRootLocked is workspaceRoot for callers holding s.mu.
func (s *Session) workspaceRootLocked(path string) string { return config.RootFor(s.roots, path) }

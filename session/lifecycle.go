package session

import (
	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/journal"
	"github.com/chatls/chatls/provider/usagelog"
)

// stateDir is $XDG_STATE_HOME/chatls or the test's.
func (s *Session) stateDir() string {
	if s.opts.StateDir != "" {
		return s.opts.StateDir
	}
	return config.StateDir()
}

// openState opens the execution journal and the decision log.
func (s *Session) openState() {
	dir := s.stateDir()
	j, err := journal.Open(dir)
	if err != nil {
		// Without a journal "at most once across restarts" cannot hold: refuse to run.
		s.log.Error("execution journal unavailable; tools will not run", zap.Error(err))
		s.showMessage(MessageError, "chatls: "+err.Error()+"; tools will not run until this is fixed")
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
func (s *Session) startToolSources() {
	s.registry.OnChange(s.refreshDocuments)
	// A source that finished loading (or timed out) decides whether the
	// tools a document waits for exist: its diagnostics and hints change,
	// and autopilot goes on.
	s.toolSet.OnChange(s.toolSourcesChanged)
	s.applySettings()
}

// toolSourcesChanged refreshes what documents show and wakes their
// autopilot after a tool source finished loading or was reconfigured.
func (s *Session) toolSourcesChanged() {
	s.refreshDocuments()
	docs := s.openDocs()
	for _, ds := range docs {
		ds.wake()
	}
}

// reconcileToolSources makes the running plugin and MCP sources follow the
// trusted settings.
func (s *Session) reconcileToolSources() {
	layers, res, _ := s.settings.store.Current()
	s.tools.Reconcile(layers, res.Trusted)
}

// updateBuiltins rebuilds the built-ins when tools.web_fetch.allowHosts
// changed. It runs right after each commit of new settings, not later with
// applySettings, so that a call decided under the new settings practically
// never starts with the old hosts.
func (s *Session) updateBuiltins() {
	s.tools.UseBuiltins(s.settings.effective().WebFetchAllowHosts)
}

// checkSandbox probes bubblewrap for every configuration that wants the
// sandbox (sandbox.enabled "auto", the default, or true), again after each
// settings change, and tells the user once about each problem (SPEC §5).
func (s *Session) checkSandbox() {
	if s.opts.SandboxWhenNeeded {
		return // sandboxProblem probes when a call asks
	}
	var bwraps []string
	for _, eff := range s.settings.store.All() {
		if eff.Sandbox.Enabled {
			bwraps = append(bwraps, eff.Sandbox.Bwrap)
		}
	}
	for _, p := range s.sandbox.Check(bwraps) {
		s.showMessage(MessageWarning, sandboxUnavailableMessage(p))
	}
}

// sandboxUnavailableMessage is SPEC §5's message, said once per problem.
func sandboxUnavailableMessage(problem string) string {
	return "chatls: the sandbox is unavailable here (" + problem + "); bash calls now need a rule or your approval"
}

// sandboxProblem is why bubblewrap cannot run for these settings, or ""
// (also when the sandbox is off).
func (s *Session) sandboxProblem(eff config.Effective) string {
	if !eff.Sandbox.Enabled {
		return ""
	}
	p := s.sandbox.Problem(eff.Sandbox.Bwrap)
	if p != "" && s.opts.SandboxWhenNeeded && s.sandbox.Report(p) {
		s.showMessage(MessageWarning, sandboxUnavailableMessage(p))
	}
	return p
}

// sandboxKnownProblemFor is sandboxProblemFor without a probe under
// SandboxWhenNeeded: "" while nothing asked yet.
func (s *Session) sandboxKnownProblemFor(path string) string {
	eff := s.settings.effectiveFor(path)
	if !s.opts.SandboxWhenNeeded || !eff.Sandbox.Enabled {
		return s.sandboxProblem(eff)
	}
	p, _ := s.sandbox.Known(eff.Sandbox.Bwrap)
	return p
}

// sandboxProblemFor is why bubblewrap cannot run although the settings of
// the document at path want the sandbox, or "".
func (s *Session) sandboxProblemFor(path string) string {
	return s.sandboxProblem(s.settings.effectiveFor(path))
}

// sandboxActiveFor says whether bash of the document at path runs inside
// bubblewrap: its settings want the sandbox and bubblewrap works.
func (s *Session) sandboxActiveFor(path string) bool {
	return s.settings.effectiveFor(path).Sandbox.Enabled && s.sandboxProblemFor(path) == ""
}

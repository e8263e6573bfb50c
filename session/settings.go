package session

import (
	"encoding/json"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/provider"
)

// settingsState is the session's configuration (config.Store: every
// layer of SPEC §4, validated before it replaces the last good one): it
// shows what was refused, and keeps what the settings decide for the session — the policy engines and the
// bound on parallel tools.
type settingsState struct {
	s     *Session
	store *config.Store
	// apply serializes what follows a change: tool sources, sandbox probe.
	apply sync.Mutex

	mu sync.Mutex
	// engines caches the policy of each document per store generation.
	engines    map[string]*approval.Engine
	engineGen  int
	errorShown int // the generation whose policy-build error was shown
	sem        chan struct{}
}

func newSettingsState(s *Session) *settingsState {
	validate := func(l config.Layers) error {
		return approval.ValidateLayers(l, config.LabelInitOptions, config.LabelPulled, s.log)
	}
	st := &settingsState{s: s, store: config.NewStore(validate, approval.TrustedRoot)}
	st.store.Tell = func(isError bool, msg string) {
		kind := MessageWarning
		if isError {
			kind = MessageError
		}
		s.showMessage(kind, msg)
	}
	st.store.OnCommit = func() {
		keyenv.SetConfigured(provider.KeyVars(st.store.All()...))
		s.tools.LSP.ConfigureFrom(st.store.Session().LSP)
		st.resize()
		s.updateBuiltins()
	}
	st.resize()
	return st
}

// effective is the session's settings, for what every document shares
// (tools.maxConcurrent, web_fetch hosts); everything about one document
// comes from effectiveFor.
func (st *settingsState) effective() config.Effective { return st.store.Session() }

// effectiveFor is the settings of the document at path: the user layers
// plus the .chatls.toml of its workspace root (narrowing only when untrusted).
func (st *settingsState) effectiveFor(path string) config.Effective {
	return st.store.For(st.s.workspaceRoot(path))
}

// defaultTimeout is tools.defaultTimeout of the document at path.
func (st *settingsState) defaultTimeout(path string) time.Duration {
	return time.Duration(st.effectiveFor(path).DefaultTimeout) * time.Second
}

// semaphore bounds parallel tools; resized when maxConcurrent changes.
func (st *settingsState) semaphore() chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sem
}

func (st *settingsState) resize() {
	n := st.store.Session().MaxConcurrent
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.sem == nil || cap(st.sem) != n {
		st.sem = make(chan struct{}, n)
	}
}

// initialLoad loads every layer and watches the files.
func (st *settingsState) initialLoad(userPath string, roots []string, initOptions any) {
	var data json.RawMessage
	if initOptions != nil {
		data, _ = json.Marshal(initOptions)
	}
	if err := st.store.Load(userPath, roots, data, st.s.onSettingsChanged); err != nil {
		st.s.log.Warn("cannot watch config files; changes need a restart", zap.Error(err))
	}
}

// SetEditorSettings replaces the editor's settings layer (JSON, section
// "chatls") and applies the result.
func (s *Session) SetEditorSettings(data json.RawMessage) {
	if len(data) > 0 && string(data) != "null" {
		s.settings.store.SetEditor(data, true)
	}
	s.onSettingsChanged()
}

// keyNames are the client's key names, for the document's messages.
func (s *Session) keyNames(ds *Doc) cycle.Keys {
	return s.settings.effectiveFor(ds.path).Keys
}

package server

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/server/lspext"
)

// Labels of the editor layers in messages (they have no file:line).
const (
	labelInitOptions = "initializationOptions"
	labelPulled      = "workspace/configuration"
)

// settingsState connects the session's configuration (config.Store: every
// layer of SPEC §4, validated before it replaces the last good one) to the
// editor and the files: it loads and watches them, pulls the editor's
// settings, and tells the user what was refused.
type settingsState struct {
	s     *Server
	store *config.Store
	// apply serializes what follows a change: tool sources, sandbox probe.
	apply sync.Mutex

	mu sync.Mutex
	// engines caches the policy of each document per store generation.
	engines    map[string]*approval.Engine
	engineGen  int
	errorShown int // the generation whose policy-build error was shown
	sem        chan struct{}
	watcher    *config.Watcher
}

func newSettingsState(s *Server) *settingsState {
	validate := func(l config.Layers) error {
		return approval.ValidateLayers(l, labelInitOptions, labelPulled, s.log)
	}
	st := &settingsState{s: s, store: config.NewStore(validate, approval.TrustedRoot)}
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

// commit validates and commits changes; a refused one is shown, and a
// source that never loaded makes the policy ask for every call until it
// is fixed (config.Store.Failed).
func (st *settingsState) commit(prefix string, changes ...config.Change) bool {
	if err := st.store.Commit(changes...); err != nil {
		consequence := " (keeping the last good configuration)"
		for _, c := range changes {
			if st.store.Failed(c.Source, err) {
				consequence = " (every tool call asks for approval until this is fixed)"
			}
		}
		st.s.showMessage(lspext.MessageError, "chatls: "+prefix+err.Error()+consequence)
		return false
	}
	st.resize()
	st.s.updateBuiltins()
	return true
}

// refuse shows a source that could not be decoded and records it.
func (st *settingsState) refuse(source, prefix string, warns []config.Warning, err error) {
	st.warn(warns)
	consequence := " (keeping the last good configuration)"
	if st.store.Failed(source, err) {
		consequence = " (every tool call asks for approval until this is fixed)"
	}
	st.s.showMessage(lspext.MessageError, "chatls: "+prefix+err.Error()+consequence)
}

func (st *settingsState) warn(warns []config.Warning) {
	for _, w := range warns {
		st.s.showMessage(lspext.MessageWarning, "chatls: "+w.String())
	}
}

// readFile decodes one config file into a change; a broken file (bad TOML,
// a bad rule, a failing rule example) is refused and shown with file:line.
func (st *settingsState) readFile(path string) (config.Change, bool) {
	c, warns, err := st.store.FileChange(path)
	if err != nil {
		st.refuse(path, "", warns, err)
		return c, false
	}
	st.warn(warns)
	return c, true
}

// decodeEditor decodes one editor layer into a change; bad settings are
// refused and shown.
func (st *settingsState) decodeEditor(label string, data json.RawMessage) (config.Change, bool) {
	c, warns, err := config.EditorChange(data, label == labelPulled)
	if err != nil {
		st.refuse(config.EditorSource, "invalid settings ("+label+"): ", warns, err)
		return c, false
	}
	st.warn(warns)
	return c, true
}

// initialLoad reads initializationOptions, the user file and the workspace
// files, validates them together and watches the files. If they don't fit
// together, they are added one by one (user file, editor, workspaces) and
// the ones that break the policy are refused and shown.
func (st *settingsState) initialLoad(userPath string, roots []string, initOptions any) {
	st.store.Start(userPath, roots)
	var changes []config.Change
	if c, ok := st.readFile(userPath); ok {
		changes = append(changes, c)
	}
	if initOptions != nil {
		data, _ := json.Marshal(initOptions)
		if c, ok := st.decodeEditor(labelInitOptions, data); ok {
			changes = append(changes, c)
		}
	}
	paths := []string{userPath}
	for _, root := range roots {
		p := filepath.Join(root, config.WorkspaceFile)
		paths = append(paths, p)
		if c, ok := st.readFile(p); ok {
			changes = append(changes, c)
		}
	}
	if st.store.Commit(changes...) == nil {
		st.resize()
		st.s.updateBuiltins()
	} else {
		for _, c := range changes {
			st.commit(prefixOf(c), c)
		}
	}
	w, err := config.Watch(paths, func(path string) {
		st.reloadFile(path)
		st.s.onSettingsChanged()
	})
	if err != nil {
		st.s.log.Warn("cannot watch config files; changes need a restart", zap.Error(err))
		return
	}
	st.mu.Lock()
	st.watcher = w
	st.mu.Unlock()
}

// prefixOf is how a refused change's source is named in the message (a
// file's errors name it themselves).
func prefixOf(c config.Change) string {
	if c.Source == config.EditorSource {
		return "invalid settings (" + labelInitOptions + "): "
	}
	return ""
}

// reloadFile reloads one config file. A broken file keeps the last good
// configuration and the error (with file:line) is shown to the user. It
// reports whether the file loaded.
func (st *settingsState) reloadFile(path string) bool {
	c, ok := st.readFile(path)
	return ok && st.commit("", c)
}

// setEditor applies one editor layer; bad settings keep the previous ones
// and are shown.
func (st *settingsState) setEditor(label string, data json.RawMessage) bool {
	c, ok := st.decodeEditor(label, data)
	return ok && st.commit("invalid settings ("+label+"): ", c)
}

// pull asks the client for section "chatls" (workspace/configuration).
func (st *settingsState) pull() {
	if data, ok := st.s.pullConfiguration(); ok {
		st.setEditor(labelPulled, data)
	}
}

// reloadEditorSettings handles workspace/didChangeConfiguration: settings in
// the notification are used directly; otherwise they are pulled.
func (st *settingsState) reloadEditorSettings(raw *json.RawMessage) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if raw != nil && json.Unmarshal(*raw, &p) == nil && len(p.Settings) > 0 && string(p.Settings) != "null" {
		st.setEditor(labelPulled, p.Settings)
	} else {
		st.pull()
	}
	st.s.onSettingsChanged()
}

func (st *settingsState) close() {
	st.mu.Lock()
	w := st.watcher
	st.mu.Unlock()
	if w != nil {
		_ = w.Close()
	}
}

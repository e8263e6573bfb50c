package server

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/server/lspext"
)

// Labels of the editor layers in messages (they have no file:line), and
// the key both share for "loaded at least once": the previous editor
// settings, from either message, are the last good ones.
const (
	labelInitOptions = "initializationOptions"
	labelPulled      = "workspace/configuration"
	keyEditor        = "editor settings"
)

// settingsState holds every configuration layer (SPEC §4): the editor's
// settings (initializationOptions, then workspace/configuration or
// didChangeConfiguration), the user file and each workspace's .chatls.toml,
// reloaded live when files change. A change is validated — the policy it
// gives must compile — before it replaces the last good layers.
type settingsState struct {
	s *Server
	// update serializes changes: decode, validate, commit.
	update sync.Mutex
	// apply serializes what follows a change: tool sources, sandbox probe.
	apply sync.Mutex

	mu     sync.Mutex
	cur    config.Layers
	res    config.Resolution
	loaded map[string]bool  // sources that loaded at least once
	failed map[string]error // sources broken since the start: the policy asks for everything
	// generation counts commits; the policy engines are cached per generation.
	generation int
	// engineErrorShown is the generation whose policy-build error was shown.
	engineErrorShown int
	sem              chan struct{}
	watcher          *config.Watcher
	engines          map[string]*approval.Engine
}

func newSettingsState(s *Server) *settingsState {
	st := &settingsState{s: s, loaded: map[string]bool{}, failed: map[string]error{}}
	st.cur = st.cur.Clone()
	st.mu.Lock()
	st.recomputeLocked()
	st.mu.Unlock()
	return st
}

// effective is the session's settings, for what is shared by every
// document (tools.maxConcurrent, web_fetch hosts): the user layers plus,
// with one workspace folder, its .chatls.toml (whole when trusted, else
// only what narrows); with several folders only what each of them narrows.
// Everything about one document comes from effectiveFor.
func (st *settingsState) effective() config.Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.res.Session()
}

// effectiveFor is the settings of the document at path: the user layers
// plus the .chatls.toml of its workspace root (narrowing only when untrusted).
func (st *settingsState) effectiveFor(path string) config.Effective {
	return st.effectiveForRoot(st.s.workspaceRoot(path))
}

// effectiveForRoot is the settings of documents under the workspace root
// (a directory that is no workspace folder gets the user layers alone).
// It takes only the settings lock: callers may hold Server.mu.
func (st *settingsState) effectiveForRoot(root string) config.Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.res.For(root)
}

// allEffective lists every configuration a document can have (for the
// sandbox probe): the user layers alone and each workspace's.
func (st *settingsState) allEffective() []config.Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.res.All()
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

// recomputeLocked derives trust and the effective settings from cur.
func (st *settingsState) recomputeLocked() {
	trust := st.cur.User().Trust
	st.res = st.cur.Resolve(func(root string) bool { return approval.TrustedRoot(trust, root) })
	if max := st.res.Session().MaxConcurrent; st.sem == nil || cap(st.sem) != max {
		st.sem = make(chan struct{}, max)
	}
	st.generation++
	st.engines = nil
}

// change applies one step to a copy of the layers, checks that the policy
// still compiles and commits it. On error the last good layers stay and the
// error is shown; the step's key names the source for "broken since the
// start" tracking.
func (st *settingsState) change(s step) bool {
	st.update.Lock()
	defer st.update.Unlock()
	st.mu.Lock()
	cand := st.cur.Clone()
	st.mu.Unlock()
	s.apply(&cand)
	if err := approval.ValidateLayers(cand, labelInitOptions, labelPulled, st.s.log); err != nil {
		st.reject(s.key, s.prefix, err)
		return false
	}
	st.mu.Lock()
	st.cur = cand
	st.loaded[s.key] = true
	delete(st.failed, s.key)
	st.recomputeLocked()
	st.mu.Unlock()
	st.s.updateBuiltins()
	return true
}

// reject reports a broken source. A source that never loaded has no last
// good version: rather than drop its deny rules, the policy asks for every
// call until it is fixed.
func (st *settingsState) reject(key, prefix string, err error) {
	st.mu.Lock()
	first := !st.loaded[key]
	if first {
		st.failed[key] = err
		st.engines = nil
		st.generation++
	}
	st.mu.Unlock()
	consequence := " (keeping the last good configuration)"
	if first {
		consequence = " (every tool call asks for approval until this is fixed)"
	}
	st.s.showMessage(lspext.MessageError, "chatls: "+prefix+err.Error()+consequence)
}

// brokenFor is the error that makes the policy of a document under root
// ask for everything, or nil.
func (st *settingsState) brokenFor(root string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, key := range []string{st.cur.UserPath, keyEditor, filepath.Join(root, config.WorkspaceFile)} {
		if err := st.failed[key]; err != nil {
			return err
		}
	}
	return nil
}

// step is one source's new settings, ready to be validated and committed.
type step struct {
	key, prefix string
	apply       func(*config.Layers)
}

// initialLoad reads initializationOptions, the user file and the workspace
// files, validates them together and watches the files. If they don't fit
// together, they are added one by one (user file, editor, workspaces) and
// the ones that break the policy are refused and shown.
func (st *settingsState) initialLoad(userPath string, roots []string, initOptions any) {
	st.mu.Lock()
	st.cur.UserPath = userPath
	st.cur.Roots = slices.Clone(roots)
	st.mu.Unlock()
	var steps []step
	if s, ok := st.readFile(userPath); ok {
		steps = append(steps, s)
	}
	if initOptions != nil {
		data, _ := json.Marshal(initOptions)
		if s, ok := st.decodeEditor(labelInitOptions, data); ok {
			steps = append(steps, s)
		}
	}
	paths := []string{userPath}
	for _, root := range roots {
		p := filepath.Join(root, config.WorkspaceFile)
		paths = append(paths, p)
		if s, ok := st.readFile(p); ok {
			steps = append(steps, s)
		}
	}
	if !st.changeAll(steps) {
		for _, s := range steps {
			st.change(s)
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

// changeAll commits every step at once if the result validates.
func (st *settingsState) changeAll(steps []step) bool {
	st.update.Lock()
	defer st.update.Unlock()
	st.mu.Lock()
	cand := st.cur.Clone()
	st.mu.Unlock()
	for _, s := range steps {
		s.apply(&cand)
	}
	if approval.ValidateLayers(cand, labelInitOptions, labelPulled, st.s.log) != nil {
		return false
	}
	st.mu.Lock()
	st.cur = cand
	for _, s := range steps {
		st.loaded[s.key] = true
		delete(st.failed, s.key)
	}
	st.recomputeLocked()
	st.mu.Unlock()
	st.s.updateBuiltins()
	return true
}

// readFile decodes one config file into a step; a broken file (bad TOML, a
// bad rule, a failing rule example) is refused and shown with file:line.
func (st *settingsState) readFile(path string) (step, bool) {
	settings, warnings, err := config.LoadFile(path)
	for _, w := range warnings {
		st.s.showMessage(lspext.MessageWarning, "chatls: "+w.String())
	}
	if err != nil {
		st.reject(path, "", err)
		return step{}, false
	}
	st.mu.Lock()
	isUser := path == st.cur.UserPath
	st.mu.Unlock()
	return step{key: path, apply: func(c *config.Layers) {
		if isUser {
			c.UserFile = settings
		} else {
			c.Workspaces[filepath.Dir(path)] = settings
		}
	}}, true
}

// reloadFile reloads one config file. A broken file keeps the last good
// configuration and the error (with file:line) is shown to the user. It
// reports whether the file loaded.
func (st *settingsState) reloadFile(path string) bool {
	s, ok := st.readFile(path)
	return ok && st.change(s)
}

// decodeEditor decodes one editor layer into a step; bad settings are refused and shown.
func (st *settingsState) decodeEditor(label string, data json.RawMessage) (step, bool) {
	settings, warnings, err := config.DecodeJSON(data)
	for _, w := range warnings {
		st.s.showMessage(lspext.MessageWarning, "chatls: "+w.String())
	}
	prefix := "invalid settings (" + label + "): "
	if err != nil {
		st.reject(keyEditor, prefix, err)
		return step{}, false
	}
	return step{key: keyEditor, prefix: prefix, apply: func(c *config.Layers) {
		if label == labelInitOptions {
			c.InitOptions = settings
		} else {
			c.Pulled = settings
		}
	}}, true
}

// setEditor applies one editor layer; bad settings keep the previous ones
// and are shown.
func (st *settingsState) setEditor(label string, data json.RawMessage) bool {
	s, ok := st.decodeEditor(label, data)
	return ok && st.change(s)
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

// userPath is the user config file.
func (st *settingsState) userPath() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cur.UserPath
}

// workspaceApplies says whether rules written to root's .chatls.toml take
// effect: root is a workspace folder (its file is loaded and watched, also
// once created) and trust.workspaces matches it.
func (st *settingsState) workspaceApplies(root string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Contains(st.cur.Roots, root) && st.res.Trusted(root)
}

package server

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
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
	cur    layers
	loaded map[string]bool  // sources that loaded at least once
	failed map[string]error // sources broken since the start: the policy asks for everything
	// trusted maps each workspace root with a .chatls.toml to whether
	// trust.workspaces of the user layers matches it.
	trusted    map[string]bool
	eff        config.Effective // the session's settings; see effective
	effByRoot  map[string]config.Effective
	userOnly   config.Effective
	generation int
	// engineErrorShown is the generation whose policy-build error was shown.
	engineErrorShown int
	sem              chan struct{}
	watcher          *config.Watcher
	engines          map[string]*approval.Engine
}

// layers is one complete configuration; changes are validated on a copy.
type layers struct {
	userPath    string
	userFile    config.Settings
	initOptions config.Settings
	pulled      config.Settings
	roots       []string
	workspaces  map[string]config.Settings // root → .chatls.toml
}

func (l layers) clone() layers {
	l.workspaces = maps.Clone(l.workspaces)
	if l.workspaces == nil {
		l.workspaces = map[string]config.Settings{}
	}
	l.roots = slices.Clone(l.roots)
	return l
}

// user are the trusted layers in order of increasing precedence.
func (l layers) user() []config.Settings {
	return []config.Settings{l.userFile, l.initOptions, l.pulled}
}

func newSettingsState(s *Server) *settingsState {
	st := &settingsState{s: s, loaded: map[string]bool{}, failed: map[string]error{}}
	st.cur = st.cur.clone()
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
	return st.eff
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
	if e, ok := st.effByRoot[root]; ok {
		return e
	}
	return st.userOnly
}

// allEffective lists every configuration a document can have (for the
// sandbox probe): the user layers alone and each workspace's.
func (st *settingsState) allEffective() []config.Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := []config.Effective{st.userOnly}
	for _, root := range slices.Sorted(maps.Keys(st.effByRoot)) {
		out = append(out, st.effByRoot[root])
	}
	return out
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

// userLayers are the trusted layers in order of increasing precedence;
// callers hold st.mu.
func (st *settingsState) userLayers() []config.Settings {
	return st.cur.user()
}

// recomputeLocked derives trust and the effective settings from cur.
func (st *settingsState) recomputeLocked() {
	user := st.cur.user()
	trust := overlay(user...).Trust
	st.userOnly = config.Merge(user...)
	st.trusted = map[string]bool{}
	st.effByRoot = map[string]config.Effective{}
	narrowing := slices.Clone(user)
	for _, root := range slices.Sorted(maps.Keys(st.cur.workspaces)) {
		ws := st.cur.workspaces[root]
		t := isTrusted(trust, root)
		st.trusted[root] = t
		if !t {
			ws = config.UntrustedView(ws)
		}
		st.effByRoot[root] = config.Merge(append(slices.Clone(user), ws)...)
		narrowing = append(narrowing, config.UntrustedView(ws))
	}
	for _, root := range st.cur.roots {
		if _, done := st.trusted[root]; !done {
			st.trusted[root] = isTrusted(trust, root)
		}
	}
	if len(st.cur.roots) == 1 {
		if e, ok := st.effByRoot[st.cur.roots[0]]; ok {
			st.eff = e
		} else {
			st.eff = st.userOnly
		}
	} else {
		st.eff = config.Merge(narrowing...)
	}
	if st.sem == nil || cap(st.sem) != st.eff.MaxConcurrent {
		st.sem = make(chan struct{}, st.eff.MaxConcurrent)
	}
	st.generation++
	st.engines = nil
}

// isTrusted applies the policy's own trust rule (trust.workspaces globs).
func isTrusted(trust config.Trust, root string) bool {
	e, err := approval.NewEngine(approval.Sources{User: config.Settings{Trust: trust}, WorkspaceRoot: root}, nil)
	return err == nil && e.Trusted()
}

// change applies one step to a copy of the layers, checks that the policy
// still compiles and commits it. On error the last good layers stay and the
// error is shown; the step's key names the source for "broken since the
// start" tracking.
func (st *settingsState) change(s step) bool {
	st.update.Lock()
	defer st.update.Unlock()
	st.mu.Lock()
	cand := st.cur.clone()
	st.mu.Unlock()
	s.apply(&cand)
	if err := validateLayers(cand, st.s.log); err != nil {
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
	st.s.showMessage(messageError, "chatls: "+prefix+err.Error()+consequence)
}

// brokenFor is the error that makes the policy of a document under root
// ask for everything, or nil.
func (st *settingsState) brokenFor(root string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, key := range []string{st.cur.userPath, keyEditor, filepath.Join(root, config.WorkspaceFile)} {
		if err := st.failed[key]; err != nil {
			return err
		}
	}
	return nil
}

// validateLayers compiles the policy of a candidate configuration: each
// trusted layer alone, so an error names its own source, then every
// workspace over the merged user layers.
func validateLayers(c layers, log *zap.Logger) error {
	user := overlay(c.user()...)
	named := []struct {
		s     config.Settings
		label string
	}{{c.userFile, c.userPath}, {c.initOptions, labelInitOptions}, {c.pulled, labelPulled}}
	for _, l := range named {
		alone := l.s
		alone.Tools.Presets = user.Tools.Presets // presets may be defined in another layer
		if _, err := approval.NewEngine(approval.Sources{User: alone, UserFile: l.label}, log); err != nil {
			return err
		}
	}
	for _, root := range slices.Sorted(maps.Keys(c.workspaces)) {
		if _, err := approval.NewEngine(approval.Sources{
			User: user, UserFile: c.userPath,
			Workspace: c.workspaces[root], WorkspaceFile: filepath.Join(root, config.WorkspaceFile), WorkspaceRoot: root,
		}, log); err != nil {
			return err
		}
	}
	return nil
}

// step is one source's new settings, ready to be validated and committed.
type step struct {
	key, prefix string
	apply       func(*layers)
}

// initialLoad reads initializationOptions, the user file and the workspace
// files, validates them together and watches the files. If they don't fit
// together, they are added one by one (user file, editor, workspaces) and
// the ones that break the policy are refused and shown.
func (st *settingsState) initialLoad(userPath string, roots []string, initOptions any) {
	st.mu.Lock()
	st.cur.userPath = userPath
	st.cur.roots = slices.Clone(roots)
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
	cand := st.cur.clone()
	st.mu.Unlock()
	for _, s := range steps {
		s.apply(&cand)
	}
	if validateLayers(cand, st.s.log) != nil {
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
		st.s.showMessage(messageWarning, "chatls: "+w.String())
	}
	if err != nil {
		st.reject(path, "", err)
		return step{}, false
	}
	st.mu.Lock()
	isUser := path == st.cur.userPath
	st.mu.Unlock()
	return step{key: path, apply: func(c *layers) {
		if isUser {
			c.userFile = settings
		} else {
			c.workspaces[filepath.Dir(path)] = settings
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
		st.s.showMessage(messageWarning, "chatls: "+w.String())
	}
	prefix := "invalid settings (" + label + "): "
	if err != nil {
		st.reject(keyEditor, prefix, err)
		return step{}, false
	}
	return step{key: keyEditor, prefix: prefix, apply: func(c *layers) {
		if label == labelInitOptions {
			c.initOptions = settings
		} else {
			c.pulled = settings
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
	s := st.s
	s.mu.Lock()
	supported := s.caps.Workspace != nil && s.caps.Workspace.Configuration
	s.mu.Unlock()
	if !supported {
		return
	}
	var result []json.RawMessage
	params := map[string]any{"items": []any{map[string]any{"section": "chatls"}}}
	if err := s.call("workspace/configuration", params, &result, clientCallTimeout); err != nil {
		s.log.Debug("workspace/configuration failed", zap.Error(err))
		return
	}
	if len(result) == 0 || string(result[0]) == "null" {
		return
	}
	st.setEditor(labelPulled, result[0])
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

// overlay merges trusted layers key by key (later wins, lists replace) into
// one Settings, for the policy's user source.
func overlay(layers ...config.Settings) config.Settings {
	merged := map[string]any{}
	for _, l := range layers {
		data, err := json.Marshal(l)
		if err != nil {
			continue
		}
		var m map[string]any
		if json.Unmarshal(data, &m) == nil {
			deepMerge(merged, m)
		}
	}
	data, _ := json.Marshal(merged)
	var out config.Settings
	_ = json.Unmarshal(data, &out)
	// Rule positions are not part of the JSON form; keep them for traces.
	for _, l := range layers {
		for k, v := range l.Lines {
			if out.Lines == nil {
				out.Lines = map[string]int{}
			}
			out.Lines[k] = v
		}
	}
	return out
}

func deepMerge(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				deepMerge(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// userPath is the user config file.
func (st *settingsState) userPath() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cur.userPath
}

// workspaceApplies says whether rules written to root's .chatls.toml take
// effect: root is a workspace folder (its file is loaded and watched, also
// once created) and trust.workspaces matches it.
func (st *settingsState) workspaceApplies(root string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Contains(st.cur.roots, root) && st.trusted[root]
}

package server

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/config"
)

// settingsState holds every configuration layer (SPEC §4): the editor's
// settings (initializationOptions, then workspace/configuration), the user
// file and each workspace's .chatls.toml, reloaded live when files change.
type settingsState struct {
	s  *Server
	mu sync.Mutex

	initOptions config.Settings
	pulled      config.Settings
	userPath    string
	userFile    config.Settings
	userErr     error
	workspaces  map[string]config.Settings // root → .chatls.toml
	wsErrs      map[string]error

	eff        config.Effective
	generation int
	sem        chan struct{}
	watcher    *config.Watcher
	engines    map[string]*approval.Engine
}

func newSettingsState(s *Server) *settingsState {
	st := &settingsState{s: s, workspaces: map[string]config.Settings{}, wsErrs: map[string]error{}}
	st.recompute()
	return st
}

func (st *settingsState) effective() config.Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.eff
}

func (st *settingsState) defaultTimeout() time.Duration {
	return time.Duration(st.effective().DefaultTimeout) * time.Second
}

// semaphore bounds parallel tools; resized when maxConcurrent changes.
func (st *settingsState) semaphore() chan struct{} {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.sem
}

// userLayers are the trusted layers in order of increasing precedence.
func (st *settingsState) userLayers() []config.Settings {
	return []config.Settings{st.userFile, st.initOptions, st.pulled}
}

// recompute derives the effective settings; callers hold no lock.
func (st *settingsState) recompute() {
	st.mu.Lock()
	defer st.mu.Unlock()
	e := config.Merge(st.userLayers()...)
	st.eff = e
	if st.sem == nil || cap(st.sem) != st.eff.MaxConcurrent {
		st.sem = make(chan struct{}, st.eff.MaxConcurrent)
	}
	st.generation++
}

// loadFiles reads the user file and the workspace files and watches them.
func (st *settingsState) loadFiles(userPath string, roots []string) {
	st.mu.Lock()
	st.userPath = userPath
	st.mu.Unlock()
	st.reloadFile(userPath)
	paths := []string{userPath}
	for _, root := range roots {
		p := filepath.Join(root, config.WorkspaceFile)
		st.reloadFile(p)
		paths = append(paths, p)
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

// reloadFile reloads one config file. A broken file keeps the last good
// configuration and the error is shown to the user.
func (st *settingsState) reloadFile(path string) {
	settings, warnings, err := config.LoadFile(path)
	for _, w := range warnings {
		st.s.showMessage(messageWarning, "chatls: "+w.String())
	}
	st.mu.Lock()
	isUser := path == st.userPath
	root := filepath.Dir(path)
	if err != nil {
		if isUser {
			st.userErr = err
		} else {
			st.wsErrs[root] = err
		}
	} else if isUser {
		st.userFile, st.userErr = settings, nil
	} else {
		st.workspaces[root] = settings
		delete(st.wsErrs, root)
	}
	st.mu.Unlock()
	if err != nil {
		st.s.showMessage(messageError, "chatls: "+err.Error()+" (keeping the last good configuration)")
	}
	st.recompute()
}

// setInitOptions takes the settings object of initializationOptions.
func (st *settingsState) setInitOptions(raw any) {
	if raw == nil {
		return
	}
	data, _ := json.Marshal(raw)
	settings, warnings, err := config.DecodeJSON(data)
	st.report(warnings, err)
	if err != nil {
		return
	}
	st.mu.Lock()
	st.initOptions = settings
	st.mu.Unlock()
	st.recompute()
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
	settings, warnings, err := config.DecodeJSON(result[0])
	st.report(warnings, err)
	if err != nil {
		return
	}
	st.mu.Lock()
	st.pulled = settings
	st.mu.Unlock()
	st.recompute()
}

// reloadEditorSettings handles workspace/didChangeConfiguration: settings in
// the notification are used directly; otherwise they are pulled.
func (st *settingsState) reloadEditorSettings(raw *json.RawMessage) {
	var p struct {
		Settings json.RawMessage `json:"settings"`
	}
	if raw != nil && json.Unmarshal(*raw, &p) == nil && len(p.Settings) > 0 && string(p.Settings) != "null" {
		settings, warnings, err := config.DecodeJSON(p.Settings)
		st.report(warnings, err)
		if err == nil {
			st.mu.Lock()
			st.pulled = settings
			st.mu.Unlock()
			st.recompute()
		}
	} else {
		st.pull()
	}
	st.s.onSettingsChanged()
}

func (st *settingsState) report(warnings []config.Warning, err error) {
	for _, w := range warnings {
		st.s.showMessage(messageWarning, "chatls: "+w.String())
	}
	if err != nil {
		st.s.showMessage(messageError, "chatls: invalid settings: "+err.Error())
	}
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

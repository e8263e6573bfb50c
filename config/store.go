package config

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
)

// EditorSource names the editor's settings (initializationOptions and
// workspace/configuration alike) as a source: the last good editor
// settings, from either message, are the ones kept.
const EditorSource = "editor settings"

// Store keeps a session's configuration: every layer (SPEC §4), what they
// resolve to, and which sources are broken. A change replaces the last good
// layers only when the configuration it gives validates (the policy
// compiles); a source that never loaded makes Broken answer, so that the
// policy can ask for everything rather than drop its rules. Safe for
// concurrent use.
type Store struct {
	validate func(Layers) error
	trusted  func(trust Trust, root string) bool
	// Tell shows the user a problem with a source (isError) or a warning
	// such as an unknown key; OnCommit runs after each committed change.
	// Set them before the first change.
	Tell     func(isError bool, msg string)
	OnCommit func()
	watcher  *Watcher

	update sync.Mutex // serializes changes: validate, commit
	mu     sync.Mutex
	cur    Layers
	res    Resolution
	loaded map[string]bool  // sources that loaded at least once
	failed map[string]error // sources broken since the start
	gen    int
	// ignoredShown is the last list of ignored untrusted settings shown,
	// so each is told once, not at every change.
	ignoredShown string
}

// NewStore starts an empty configuration. validate checks a candidate
// configuration; trusted says whether trust.workspaces matches a root.
func NewStore(validate func(Layers) error, trusted func(trust Trust, root string) bool) *Store {
	st := &Store{validate: validate, trusted: trusted, loaded: map[string]bool{}, failed: map[string]error{}}
	st.cur = st.cur.Clone()
	st.recompute()
	return st
}

// Change is one source's new settings, ready to be validated and committed.
type Change struct {
	Source string // a file path, or EditorSource
	prefix string // names the source in messages (a file's errors name it themselves)
	apply  func(*Layers)
}

// Start sets the user file and the workspace folders, before any change.
func (st *Store) Start(userPath string, roots []string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cur.UserPath, st.cur.Roots = userPath, slices.Clone(roots)
	st.recompute()
}

// FileChange reads a config file (the user file, or a workspace's
// .chatls.toml) into a change. A missing file is empty settings.
func (st *Store) FileChange(path string) (Change, []Warning, error) {
	settings, warns, err := LoadFile(path)
	if err != nil {
		return Change{}, warns, err
	}
	st.mu.Lock()
	isUser := path == st.cur.UserPath
	st.mu.Unlock()
	return Change{Source: path, apply: func(l *Layers) {
		if isUser {
			l.UserFile = settings
		} else {
			l.Workspaces[filepath.Dir(path)] = settings
		}
	}}, warns, nil
}

// EditorChange decodes the editor's settings: pulled says they answer
// workspace/configuration (or didChangeConfiguration) rather than being
// initializationOptions.
func EditorChange(data json.RawMessage, pulled bool) (Change, []Warning, error) {
	settings, warns, err := DecodeJSON(data)
	if err != nil {
		return Change{}, warns, err
	}
	label := LabelInitOptions
	if pulled {
		label = LabelPulled
	}
	return Change{Source: EditorSource, prefix: "invalid settings (" + label + "): ", apply: func(l *Layers) {
		if pulled {
			l.Pulled = settings
		} else {
			l.InitOptions = settings
		}
	}}, warns, nil
}

// Commit applies the changes together if the configuration they give
// validates, else nothing changes and the validation error comes back.
func (st *Store) Commit(changes ...Change) error {
	st.update.Lock()
	defer st.update.Unlock()
	st.mu.Lock()
	cand := st.cur.Clone()
	st.mu.Unlock()
	for _, c := range changes {
		c.apply(&cand)
	}
	if err := st.validate(cand); err != nil {
		return err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cur = cand
	for _, c := range changes {
		st.loaded[c.Source] = true
		delete(st.failed, c.Source)
	}
	st.recompute()
	return nil
}

// Failed records that source could not be loaded. A source that never
// loaded has no last good version: it stays broken (Broken) until it loads,
// and first says so.
func (st *Store) Failed(source string, err error) (first bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.loaded[source] {
		return false
	}
	st.failed[source] = err
	st.gen++
	return true
}

// Broken is the error of a user source, broken since the start, that the
// policy of every document depends on (the user file, the editor's
// settings), or nil; workspace is the error of root's .chatls.toml, broken
// since the start, or nil. Without its user rules the policy must ask for
// everything; without a workspace file the user's rules still decide.
func (st *Store) Broken(root string) (user, workspace error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, key := range []string{st.cur.UserPath, EditorSource} {
		if err := st.failed[key]; err != nil {
			return err, nil
		}
	}
	return nil, st.failed[filepath.Join(root, WorkspaceFile)]
}

// recompute derives trust and the effective settings; callers hold mu.
func (st *Store) recompute() {
	trust := st.cur.User().Trust
	st.res = st.cur.Resolve(func(root string) bool { return st.trusted(trust, root) })
	st.gen++
}

// Current is the layers and what they resolve to, with a generation that
// changes whenever either (or a broken source) does.
func (st *Store) Current() (Layers, Resolution, int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cur, st.res, st.gen
}

// For is the settings of documents under the workspace root.
func (st *Store) For(root string) Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.res.For(root)
}

// Session is the settings every document shares (Resolution.Session).
func (st *Store) Session() Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.res.Session()
}

// All lists every configuration a document can have.
func (st *Store) All() []Effective {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.res.All()
}

// UserPath is the user config file.
func (st *Store) UserPath() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cur.UserPath
}

// WorkspaceApplies says whether rules written to root's .chatls.toml take
// effect: root is a workspace folder (its file is loaded and watched, also
// once created) and trust.workspaces matches it.
func (st *Store) WorkspaceApplies(root string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return slices.Contains(st.cur.Roots, root) && st.res.Trusted(root)
}

// Labels of the editor layers in messages (they have no file:line).
const (
	LabelInitOptions = "initializationOptions"
	LabelPulled      = "workspace/configuration"
)

// Load reads the user file, the editor's initializationOptions and the
// workspace files, validates them together and commits them. If they
// don't fit together, they are added one by one (user file, editor,
// workspaces) and the ones that break the policy are refused and shown.
// Then the files are watched: onFile runs after each reload.
func (st *Store) Load(userPath string, roots []string, initOptions json.RawMessage, onFile func()) error {
	st.Start(userPath, roots)
	var changes []Change
	if c, ok := st.readFile(userPath); ok {
		changes = append(changes, c)
	}
	if initOptions != nil {
		if c, ok := st.decodeEditor(initOptions, false); ok {
			changes = append(changes, c)
		}
	}
	paths := []string{userPath}
	for _, root := range roots {
		p := filepath.Join(root, WorkspaceFile)
		paths = append(paths, p)
		if c, ok := st.readFile(p); ok {
			changes = append(changes, c)
		}
	}
	if st.Commit(changes...) == nil {
		st.committed()
	} else {
		for _, c := range changes {
			st.commit(c)
		}
	}
	w, err := Watch(paths, func(path string) {
		st.ReloadFile(path)
		onFile()
	})
	if err != nil {
		return err
	}
	st.mu.Lock()
	st.watcher = w
	st.mu.Unlock()
	return nil
}

// ReloadFile reloads one config file. A broken file keeps the last good
// configuration and the error (with file:line) is shown. It reports
// whether the file loaded.
func (st *Store) ReloadFile(path string) bool {
	c, ok := st.readFile(path)
	return ok && st.commit(c)
}

// SetEditor applies the editor's settings (pulled: workspace/configuration
// or didChangeConfiguration, else initializationOptions); bad settings keep
// the previous ones and are shown.
func (st *Store) SetEditor(data json.RawMessage, pulled bool) bool {
	c, ok := st.decodeEditor(data, pulled)
	return ok && st.commit(c)
}

// Close stops watching the files.
func (st *Store) Close() error {
	st.mu.Lock()
	w := st.watcher
	st.mu.Unlock()
	if w == nil {
		return nil
	}
	return w.Close()
}

// commit validates and commits a change; a refused one is shown, and a
// source that never loaded keeps the policy asking for every call until it
// is fixed (Failed).
func (st *Store) commit(c Change) bool {
	if err := st.Commit(c); err != nil {
		st.refuse(c.Source, c.prefix, nil, err)
		return false
	}
	st.committed()
	return true
}

func (st *Store) committed() {
	st.mu.Lock()
	ignored := st.res.Ignored()
	key := fmt.Sprint(ignored)
	fresh := key != st.ignoredShown
	st.ignoredShown = key
	st.mu.Unlock()
	if fresh {
		st.warn(ignored)
	}
	if st.OnCommit != nil {
		st.OnCommit()
	}
}

// refuse shows a source that could not be used and records it.
func (st *Store) refuse(source, prefix string, warns []Warning, err error) {
	st.warn(warns)
	consequence := " (keeping the last good configuration)"
	if st.Failed(source, err) {
		consequence = " (every tool call asks for approval until this is fixed)"
	}
	st.tell(true, "chatls: "+prefix+err.Error()+consequence)
}

func (st *Store) warn(warns []Warning) {
	for _, w := range warns {
		st.tell(false, "chatls: "+w.String())
	}
}

func (st *Store) tell(isError bool, msg string) {
	if st.Tell != nil {
		st.Tell(isError, msg)
	}
}

// readFile decodes one config file into a change; a broken file (bad TOML,
// a bad rule, a failing rule example) is refused and shown with file:line.
func (st *Store) readFile(path string) (Change, bool) {
	c, warns, err := st.FileChange(path)
	if err != nil {
		st.refuse(path, "", warns, err)
		return c, false
	}
	st.warn(warns)
	return c, true
}

// decodeEditor decodes the editor's settings into a change; bad settings
// are refused and shown.
func (st *Store) decodeEditor(data json.RawMessage, pulled bool) (Change, bool) {
	c, warns, err := EditorChange(data, pulled)
	if err != nil {
		label := LabelInitOptions
		if pulled {
			label = LabelPulled
		}
		st.refuse(EditorSource, "invalid settings ("+label+"): ", warns, err)
		return c, false
	}
	st.warn(warns)
	return c, true
}

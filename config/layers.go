package config

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// Layers are every configuration source of a session (SPEC §4), each as
// the user wrote it: the user file, the editor's settings
// (initializationOptions, then workspace/configuration or
// didChangeConfiguration — both trusted, like the user file) and each
// workspace folder's .chatls.toml.
type Layers struct {
	UserPath    string
	UserFile    Settings
	InitOptions Settings
	Pulled      Settings
	// Roots are the workspace folders of the session.
	Roots []string
	// Workspaces maps a workspace root to its .chatls.toml.
	Workspaces map[string]Settings
}

// Clone copies the layers so a change can be validated on the copy.
func (l Layers) Clone() Layers {
	l.Workspaces = maps.Clone(l.Workspaces)
	if l.Workspaces == nil {
		l.Workspaces = map[string]Settings{}
	}
	l.Roots = slices.Clone(l.Roots)
	return l
}

// UserLayers are the trusted layers in order of increasing precedence.
func (l Layers) UserLayers() []Settings {
	return []Settings{l.UserFile, l.InitOptions, l.Pulled}
}

// User is the trusted layers merged: the policy's user source.
func (l Layers) User() Settings { return Overlay(l.UserLayers()...) }

// Resolution is what the layers mean for each place a document can be:
// which workspace roots are trusted and the effective settings there.
type Resolution struct {
	trusted  map[string]bool
	byRoot   map[string]Effective
	userOnly Effective
	session  Effective
	ignored  []Warning
}

// IgnoredProvidersMessage says why an untrusted file's provider entries
// do nothing (SPEC §7 "Keys and trust").
const IgnoredProvidersMessage = "providers ignored: only trusted settings may say where the conversation and keys go (add this workspace to trust.workspaces in your user config to use them)"

// IgnoredAgentsMessage says why an untrusted file's agent entries (type
// acp) start nothing: they would run a program of the file's choosing.
const IgnoredAgentsMessage = "agents not started: an untrusted workspace file cannot name a program for chatls to run (providers of type acp belong in your user config, or add this workspace to trust.workspaces)"

// ignoredProviders is the warning for an untrusted file's provider
// entries: the agents among them are named, they are what would run.
func ignoredProviders(ps map[string]ProviderSettings) string {
	var agents []string
	for _, name := range slices.Sorted(maps.Keys(ps)) {
		if ps[name].Type == "acp" || len(ps[name].Command) > 0 {
			agents = append(agents, "providers."+name)
		}
	}
	if len(agents) == 0 {
		return IgnoredProvidersMessage
	}
	return strings.Join(agents, ", ") + ": " + IgnoredAgentsMessage
}

// Ignored lists what untrusted workspace files set that was dropped and
// matters to the user (provider entries).
func (r Resolution) Ignored() []Warning { return r.ignored }

// Resolve computes the effective settings: the user layers alone, and for
// each workspace root with a .chatls.toml the user layers plus that file —
// whole when trusted(root) (trust.workspaces matches it), else only what
// narrows (UntrustedView).
func (l Layers) Resolve(trusted func(root string) bool) Resolution {
	user := l.UserLayers()
	r := Resolution{trusted: map[string]bool{}, byRoot: map[string]Effective{}, userOnly: Merge(user...)}
	narrowing := slices.Clone(user)
	for _, root := range slices.Sorted(maps.Keys(l.Workspaces)) {
		ws := l.Workspaces[root]
		t := trusted(root)
		r.trusted[root] = t
		if !t {
			if len(ws.Providers) > 0 {
				r.ignored = append(r.ignored, Warning{File: filepath.Join(root, WorkspaceFile), Message: ignoredProviders(ws.Providers)})
			}
			ws = UntrustedView(ws)
		}
		e := Merge(append(slices.Clone(user), ws)...)
		if !t {
			e.Send = narrowSend(e.Send, r.userOnly.Send)
			e.TargetFromUntrusted = ws.Target != ""
		}
		r.byRoot[root] = e
		narrowing = append(narrowing, UntrustedView(ws))
	}
	for _, root := range l.Roots {
		if _, done := r.trusted[root]; !done {
			r.trusted[root] = trusted(root)
		}
	}
	switch e, ok := r.byRoot[firstOf(l.Roots)]; {
	case len(l.Roots) == 1 && ok:
		r.session = e
	case len(l.Roots) == 1:
		r.session = r.userOnly
	default:
		r.session = Merge(narrowing...)
		r.session.Send = narrowSend(r.session.Send, r.userOnly.Send)
	}
	return r
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// For is the settings of documents under the workspace root (a directory
// that is no workspace folder with a .chatls.toml gets the user layers alone).
func (r Resolution) For(root string) Effective {
	if e, ok := r.byRoot[root]; ok {
		return e
	}
	return r.userOnly
}

// Session is the settings of what every document shares
// (tools.maxConcurrent, web_fetch hosts): the user layers plus, with one
// workspace folder, its .chatls.toml; with several folders only what each
// of them narrows.
func (r Resolution) Session() Effective { return r.session }

// Trusted says whether trust.workspaces matches the workspace root.
func (r Resolution) Trusted(root string) bool { return r.trusted[root] }

// All lists every configuration a document can have: the user layers
// alone and each workspace's (for the sandbox probe).
func (r Resolution) All() []Effective {
	out := []Effective{r.userOnly}
	for _, root := range slices.Sorted(maps.Keys(r.byRoot)) {
		out = append(out, r.byRoot[root])
	}
	return out
}

// LoadLayers reads the user file and the .chatls.toml of each workspace
// root, as the command line uses them (no editor layers). A missing file
// is empty settings. errs maps each file that could not be loaded to why;
// its layer stays empty.
func LoadLayers(userPath string, roots []string) (l Layers, warns []Warning, errs map[string]error) {
	l = Layers{UserPath: userPath, Roots: slices.Clone(roots), Workspaces: map[string]Settings{}}
	errs = map[string]error{}
	load := func(path string) Settings {
		s, w, err := LoadFile(path)
		warns = append(warns, w...)
		if err != nil {
			errs[path] = err
		}
		return s
	}
	l.UserFile = load(userPath)
	for _, root := range roots {
		l.Workspaces[root] = load(filepath.Join(root, WorkspaceFile))
	}
	return l, warns, errs
}

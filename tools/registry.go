package tools

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Source provides tools that load asynchronously: plugin executables, MCP
// servers. A source whose list changes later calls Registry.Replace.
type Source interface {
	Name() string
	Load(ctx context.Context) ([]Tool, error)
}

// Registry knows every tool by name: the built-ins first, then the tools of
// each source in the order the sources were added (an earlier name wins; the
// loser is reported in SourceErrors). It is safe for concurrent use.
type Registry struct {
	mu       sync.Mutex
	builtins []Tool
	sources  []*sourceState
	// byName is replaced whole on every change and read without the lock:
	// validation looks a tool up per call, from every core at once.
	byName    atomic.Pointer[map[string]*registered]
	listeners []func()
	// changed is closed and replaced on every state change so WaitReady can wait.
	changed chan struct{}
	schemas schemaCache
	// generation counts the changes of the tool set, for callers that
	// remember what they derived from it (surface.ToolDiagnosticsCache).
	generation uint64
}

type sourceState struct {
	name     string
	tools    []Tool
	err      error
	done     bool
	shadowed []string
}

type registered struct {
	tool   Tool
	source string
	// schema is the tool's compiled schema, found on the first validation.
	// A tool's definition is fixed; a source whose schema changes replaces
	// the tool, and the registry then registers a new entry.
	schema struct {
		once sync.Once
		cs   *compiledSchema
		errs []ValidationError
		ok   bool
	}
}

// names is the current name → entry map (never written).
func (r *Registry) names() map[string]*registered { return *r.byName.Load() }

// NewRegistry returns a registry holding the given built-ins.
func NewRegistry(builtins []Tool) *Registry {
	r := &Registry{builtins: builtins, changed: make(chan struct{})}
	r.rebuildLocked()
	return r
}

// AddSource starts loading s in the background. Until it finishes, or until
// timeout passes, Ready reports false. A source that answers after its
// timeout still gets its tools registered (and listeners notified).
func (r *Registry) AddSource(s Source, timeout time.Duration) {
	name := s.Name()
	r.mu.Lock()
	st := r.sourceLocked(name)
	st.done, st.err = false, nil
	r.signalLocked()
	r.mu.Unlock()

	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		type loaded struct {
			tools []Tool
			err   error
		}
		ch := make(chan loaded, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					ch <- loaded{err: fmt.Errorf("panic while loading: %v", p)}
				}
			}()
			tools, err := s.Load(ctx)
			ch <- loaded{tools, err}
		}()
		select {
		case l := <-ch:
			r.finishSource(name, l.tools, l.err)
		case <-ctx.Done():
			r.finishSource(name, nil, fmt.Errorf("tool source %s did not load within %s", name, timeout))
			// A late answer still counts: the user would rather have the tools.
			if l := <-ch; l.err == nil && len(l.tools) > 0 {
				r.finishSource(name, l.tools, nil)
			}
		}
	}()
}

func (r *Registry) finishSource(name string, tools []Tool, err error) {
	r.mu.Lock()
	st := r.sourceLocked(name)
	st.done, st.err = true, err
	if err == nil {
		st.tools = tools
	}
	r.rebuildLocked()
	r.signalLocked()
	listeners := append([]func(){}, r.listeners...)
	r.mu.Unlock()
	notify(listeners)
}

// Replace sets the tools of a source (MCP `list_changed`, a restarted plugin)
// and notifies listeners. An unknown source name is added as loaded.
func (r *Registry) Replace(source string, tools []Tool) {
	r.finishSource(source, tools, nil)
}

// SetBuiltins replaces the built-in tools, e.g. with builtin.Tools(opts)
// after a settings reload changed tools.web_fetch.allowHosts. Calls already running
// keep the tool they started with; the next Lookup returns the new one.
// Listeners are notified only when a definition changed (name, description
// or schema): options such as allowHosts change behaviour, not definitions,
// so an OnChange listener may call SetBuiltins without looping.
func (r *Registry) SetBuiltins(builtins []Tool) {
	r.mu.Lock()
	changed := definitionsKey(r.builtins) != definitionsKey(builtins)
	r.builtins = builtins
	r.rebuildLocked()
	r.signalLocked()
	listeners := append([]func(){}, r.listeners...)
	r.mu.Unlock()
	if changed {
		notify(listeners)
	}
}

// definitionsKey sums up what listeners care about in a list of tools.
func definitionsKey(tools []Tool) string {
	var b strings.Builder
	for _, t := range tools {
		d := t.Definition()
		b.WriteString(d.Name)
		b.WriteByte(0)
		b.WriteString(d.Description)
		b.WriteByte(0)
		b.Write(d.Schema)
		b.WriteByte(0)
	}
	return b.String()
}

// OnChange registers f to run after a source finishes loading or changes.
// Listeners run on the goroutine that made the change, without locks held.
func (r *Registry) OnChange(f func()) {
	r.mu.Lock()
	r.listeners = append(r.listeners, f)
	r.mu.Unlock()
}

func notify(listeners []func()) {
	for _, f := range listeners {
		f()
	}
}

// Ready reports whether every source has loaded, failed or timed out.
func (r *Registry) Ready() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.readyLocked()
}

func (r *Registry) readyLocked() bool {
	for _, s := range r.sources {
		if !s.done {
			return false
		}
	}
	return true
}

// WaitReady blocks until Ready or ctx ends (then it returns ctx's error).
func (r *Registry) WaitReady(ctx context.Context) error {
	for {
		r.mu.Lock()
		if r.readyLocked() {
			r.mu.Unlock()
			return nil
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Lookup finds a tool by its exact name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	byName := r.names()
	e, ok := byName[name]
	if !ok && strings.Contains(name, ":") {
		// Flemma 0.11's MCP names (`server:tool`) name 0.12's `server.tool`.
		e, ok = byName[strings.Replace(name, ":", ".", 1)]
	}
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// List returns every definition sorted by name, with Source filled in.
func (r *Registry) List() []Definition {
	byName := r.names()
	defs := make([]Definition, 0, len(byName))
	for _, e := range byName {
		d := e.tool.Definition()
		if d.Source == "" {
			d.Source = e.source
		}
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs
}

// SourceErrors returns the sources that failed, timed out or lost tool names
// to earlier ones; the server shows them as warnings.
func (r *Registry) SourceErrors() map[string]error {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]error{}
	for _, s := range r.sources {
		var errs []error
		if s.err != nil {
			errs = append(errs, s.err)
		}
		for _, n := range s.shadowed {
			errs = append(errs, fmt.Errorf("tool %q is already defined by another source; this one is ignored", n))
		}
		if len(errs) > 0 {
			out[s.name] = errors.Join(errs...)
		}
	}
	return out
}

func (r *Registry) sourceLocked(name string) *sourceState {
	for _, s := range r.sources {
		if s.name == name {
			return s
		}
	}
	s := &sourceState{name: name}
	r.sources = append(r.sources, s)
	return s
}

func (r *Registry) signalLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *Registry) rebuildLocked() {
	byName := map[string]*registered{}
	for _, t := range r.builtins {
		byName[t.Definition().Name] = &registered{tool: t, source: "builtin"}
	}
	for _, s := range r.sources {
		s.shadowed = nil
		for _, t := range s.tools {
			name := t.Definition().Name
			if _, taken := byName[name]; taken {
				s.shadowed = append(s.shadowed, name)
				continue
			}
			byName[name] = &registered{tool: t, source: s.name}
		}
	}
	r.byName.Store(&byName)
	r.generation++
}

// Generation changes whenever the tools or their definitions may have.
func (r *Registry) Generation() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.generation
}

package custom

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"github.com/chatls/chatls/tools/mcp"
	"github.com/chatls/chatls/tools/plugin"
	"go.uber.org/zap"
)

// Set keeps the running plugin and MCP sources of one registry in line with
// the settings: Reconcile starts what is new, stops what was removed,
// restarts what changed and leaves the rest running. It also answers
// whether a tool may still arrive from a source that is loading, so callers
// wait only for the documents that need it.
type Set struct {
	reg    *tools.Registry
	logger *zap.Logger

	reconcileMu sync.Mutex // Reconcile and Close apply in call order
	stopping    sync.WaitGroup

	mu        sync.Mutex
	slots     map[string]*slot // by source name: plugin:NAME, mcp:NAME
	closed    bool
	listeners []func()
	changed   chan struct{} // closed and replaced on every change, for WaitFor
}

// slot is one configured source name over time; gen counts its
// (re)configurations so that a load started for an older configuration
// cannot be mistaken for the current one.
type slot struct {
	name    string
	key     string // the entry's configuration as JSON: equal means unchanged
	src     tools.Source
	gen     int
	loading bool // loading for the current gen, within its timeout
}

// Changes says what a Reconcile did, by source name.
type Changes struct {
	Started, Restarted, Stopped, Unchanged []string
}

// NewSet returns an empty set feeding reg.
func NewSet(reg *tools.Registry, logger *zap.Logger) *Set {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Set{reg: reg, logger: logger, slots: map[string]*slot{}, changed: make(chan struct{})}
}

// entry is one source the configuration asks for.
type entry struct {
	name, key string
	build     func() tools.Source
}

func (s *Set) entries(cfg Config) []entry {
	var out []entry
	seen := map[string]int{}
	add := func(e entry) {
		if i, dup := seen[e.name]; dup {
			s.logger.Warn("tool source configured twice; the last entry counts", zap.String("source", e.name))
			out[i] = e
			return
		}
		seen[e.name] = len(out)
		out = append(out, e)
	}
	for _, p := range cfg.Plugins {
		add(entry{name: "plugin:" + p.Name, key: jsonKey(p), build: func() tools.Source { return plugin.NewSource(p, s.logger) }})
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.MCPServers)) {
		srv := cfg.MCPServers[name]
		add(entry{name: "mcp:" + name, key: jsonKey(srv), build: func() tools.Source { return mcp.NewSource(name, srv, s.logger) }})
	}
	return out
}

func jsonKey(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// Reconcile makes the running sources match cfg and returns at once: new
// and changed sources load in the background (each within cfg.Timeout, and
// the registry is not Ready meanwhile), removed ones disappear from the
// registry now and their processes stop in the background (Close waits for
// them). Call it with every new settings value; unchanged entries keep
// their processes. Calls apply in order; after Close it does nothing.
func (s *Set) Reconcile(cfg Config) Changes {
	s.reconcileMu.Lock()
	defer s.reconcileMu.Unlock()
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = config.DefaultToolTimeout * time.Second
	}
	var (
		ch      Changes
		stop    []tools.Source
		start   []*handle
		removed []string
	)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ch
	}
	wanted := map[string]bool{}
	for _, e := range s.entries(cfg) {
		wanted[e.name] = true
		sl := s.slots[e.name]
		switch {
		case sl == nil:
			sl = &slot{name: e.name}
			s.slots[e.name] = sl
			ch.Started = append(ch.Started, e.name)
		case sl.src == nil:
			ch.Started = append(ch.Started, e.name)
		case sl.key == e.key:
			ch.Unchanged = append(ch.Unchanged, e.name)
			continue
		default:
			stop = append(stop, sl.src)
			ch.Restarted = append(ch.Restarted, e.name)
		}
		sl.key, sl.src, sl.loading = e.key, e.build(), true
		sl.gen++
		start = append(start, &handle{set: s, slot: sl, gen: sl.gen, timeout: timeout})
	}
	for _, name := range slices.Sorted(maps.Keys(s.slots)) {
		sl := s.slots[name]
		if wanted[name] || sl.src == nil {
			continue
		}
		stop = append(stop, sl.src)
		sl.src, sl.key, sl.loading = nil, "", false
		sl.gen++
		removed = append(removed, name)
	}
	ch.Stopped = removed
	s.signalLocked()
	s.mu.Unlock()

	// The registry runs its listeners synchronously: never under s.mu.
	for _, name := range removed {
		s.reg.Replace(name, nil)
	}
	for _, h := range start {
		if w, ok := h.src().(Watcher); ok {
			w.OnToolsChanged(h.replace)
		}
		s.reg.AddSource(h, timeout)
	}
	for _, src := range stop {
		s.stopping.Go(func() { closeSource(src) })
	}
	if len(start)+len(stop) > 0 {
		s.logger.Info("tool sources reconciled", zap.Strings("started", ch.Started),
			zap.Strings("restarted", ch.Restarted), zap.Strings("stopped", ch.Stopped))
	}
	s.notify()
	return ch
}

// Close stops every source and waits until their processes are gone.
func (s *Set) Close() error {
	s.reconcileMu.Lock()
	defer s.reconcileMu.Unlock()
	s.mu.Lock()
	var srcs []tools.Source
	if !s.closed {
		s.closed = true
		for _, sl := range s.slots {
			if sl.src != nil {
				srcs = append(srcs, sl.src)
			}
			sl.src, sl.loading = nil, false
			sl.gen++
		}
		s.signalLocked()
	}
	s.mu.Unlock()
	err := closeAll(srcs)
	s.stopping.Wait()
	s.notify()
	return err
}

func closeSource(src tools.Source) error {
	if c, ok := src.(interface{ Close() error }); ok {
		return c.Close()
	}
	return nil
}

// MayProvide reports whether the tool name is not known yet but could still
// come from a source that is loading (and within its timeout): an MCP tool
// SERVER:tool only from that server, any name from a plugin. A caller that
// needs the tool waits (WaitFor); one that does not can go on.
func (s *Set) MayProvide(name string) bool {
	if _, known := s.reg.Lookup(name); known {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range s.slots {
		if sl.loading && CouldProvide(sl.name, name) {
			return true
		}
	}
	return false
}

// Loading reports whether any source is still loading within its timeout.
func (s *Set) Loading() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sl := range s.slots {
		if sl.loading {
			return true
		}
	}
	return false
}

// WaitFor blocks until none of names may still come from a loading source
// (see MayProvide), or ctx ends (then it returns ctx's error).
func (s *Set) WaitFor(ctx context.Context, names ...string) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if !slices.ContainsFunc(names, s.MayProvide) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// OnChange registers f to run after a source finishes loading (or its
// timeout passes) and after each Reconcile: the moment to re-check
// MayProvide. It runs without the set's locks, but possibly inside
// Reconcile: f must not call Reconcile or Close itself.
func (s *Set) OnChange(f func()) {
	s.mu.Lock()
	s.listeners = append(s.listeners, f)
	s.mu.Unlock()
}

func (s *Set) notify() {
	s.mu.Lock()
	listeners := slices.Clone(s.listeners)
	s.mu.Unlock()
	for _, f := range listeners {
		f()
	}
}

func (s *Set) signalLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// loadEnded records that the load of gen is over (the registry has its
// answer, or its timeout passed).
func (s *Set) loadEnded(sl *slot, gen int) {
	s.mu.Lock()
	ended := sl.gen == gen && sl.loading
	if ended {
		sl.loading = false
		s.signalLocked()
	}
	s.mu.Unlock()
	if ended {
		s.notify()
	}
}

// handle is what the registry loads: one configuration (gen) of a slot.
type handle struct {
	set     *Set
	slot    *slot
	gen     int
	timeout time.Duration // the registry's, for the sources' messages
}

func (h *handle) Name() string { return h.slot.name }

func (h *handle) src() tools.Source {
	h.set.mu.Lock()
	defer h.set.mu.Unlock()
	if h.slot.gen != h.gen {
		return nil
	}
	return h.slot.src
}

// Load loads the slot's current source. If the configuration changes while
// it loads, it answers for the new source instead, so that a late answer
// for an old configuration never lands in the registry under the same name.
func (h *handle) Load(ctx context.Context) ([]tools.Tool, error) {
	if ctx.Done() == nil {
		defer h.set.loadEnded(h.slot, h.gen)
	} else {
		// The registry cancels ctx after storing the answer, or at its
		// timeout: either way the wait for this source is over then.
		context.AfterFunc(ctx, func() { h.set.loadEnded(h.slot, h.gen) })
	}
	for {
		h.set.mu.Lock()
		src, gen := h.slot.src, h.slot.gen
		h.set.mu.Unlock()
		if src == nil {
			return nil, nil // removed meanwhile
		}
		inner, cancel := beforeDeadline(ctx)
		list, err := src.Load(plugin.WithLoadTimeout(inner, h.timeout))
		cancel()
		h.set.mu.Lock()
		current := h.slot.gen == gen
		h.set.mu.Unlock()
		if current || ctx.Err() != nil {
			return list, err
		}
	}
}

// beforeDeadline gives a source a little less time than the registry, so
// that the source's own explanation ("did not answer init within 3s…")
// arrives before the registry's generic timeout even on a busy machine.
func beforeDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok {
		return ctx, func() {}
	}
	margin := min(time.Until(deadline)/4, 500*time.Millisecond)
	return context.WithDeadline(ctx, deadline.Add(-margin))
}

// replace forwards a source's new tool list (list_changed, a restarted
// plugin, a retried first load) unless its configuration was replaced.
func (h *handle) replace(list []tools.Tool) {
	if h.src() != nil {
		h.set.reg.Replace(h.slot.name, list)
	}
}

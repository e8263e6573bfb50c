package lsp

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/config"
)

// Entry is a language server chatls knows how to run.
type Entry struct {
	Name        string
	Command     []string
	Extensions  []string       // file name endings it serves
	RootMarkers []string       // files that mark a workspace root
	Settings    map[string]any // answered to workspace/configuration
}

// Builtins are the servers used when their binary is on PATH.
var Builtins = []Entry{
	{Name: "gopls", Command: []string{"gopls"}, Extensions: []string{".go"}, RootMarkers: []string{"go.work", "go.mod"}},
	{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Extensions: []string{".rs"}, RootMarkers: []string{"Cargo.toml"}},
	{Name: "basedpyright", Command: []string{"basedpyright-langserver", "--stdio"}, Extensions: []string{".py"}, RootMarkers: []string{"pyproject.toml", "setup.py"}},
	{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Extensions: []string{".py"}, RootMarkers: []string{"pyproject.toml", "setup.py"}},
	{Name: "typescript-language-server", Command: []string{"typescript-language-server", "--stdio"}, Extensions: []string{".ts", ".tsx", ".js", ".jsx"}, RootMarkers: []string{"tsconfig.json", "package.json"}},
	{Name: "clangd", Command: []string{"clangd"}, Extensions: []string{".c", ".h", ".cc", ".cpp", ".hpp"}, RootMarkers: []string{"compile_commands.json", ".clangd"}},
}

var languageIDs = map[string]string{".go": "go", ".rs": "rust", ".py": "python", ".ts": "typescript", ".tsx": "typescriptreact",
	".js": "javascript", ".jsx": "javascriptreact", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp"}

// DefaultIdle is how long an unused server stays warm (lsp.idleTimeout).
const DefaultIdle = 10 * time.Minute

// Pool keeps one server per entry and workspace root.
type Pool struct {
	Entries []Entry
	Idle    time.Duration
	Settle  time.Duration // how long diagnostics must stay quiet
	// LookPath finds binaries (exec.LookPath; tests may narrow it).
	LookPath func(string) (string, error)

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
	stop    chan struct{}
	once    sync.Once
}

// NewPool is a pool of the built-in entries.
func NewPool() *Pool {
	return &Pool{Entries: Builtins, Idle: DefaultIdle, Settle: DefaultSettle, LookPath: exec.LookPath, servers: map[string]*server{}, stop: make(chan struct{})}
}

// Configure applies lsp.* from the trusted settings: configured servers
// first (replacing a built-in entry of the same name), then the built-ins.
// Running servers keep running.
func (p *Pool) Configure(servers map[string]Entry, idle, settle time.Duration) {
	var entries []Entry
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		entries = append(entries, servers[name])
	}
	for _, e := range Builtins {
		if _, replaced := servers[e.Name]; !replaced {
			entries = append(entries, e)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Entries = entries
	p.Idle = cmpDur(idle, DefaultIdle)
	p.Settle = cmpDur(settle, DefaultSettle)
}

func cmpDur(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Available says whether some server of the pool is on PATH (the LSP
// tools are offered only then).
func (p *Pool) Available() bool {
	p.mu.Lock()
	entries := p.Entries
	p.mu.Unlock()
	for _, e := range entries {
		if _, err := p.LookPath(e.Command[0]); err == nil {
			return true
		}
	}
	return false
}

// entryFor is the first entry serving the file whose binary is on PATH.
func (p *Pool) entryFor(path string) (Entry, error) {
	ext := filepath.Ext(path)
	var names []string
	p.mu.Lock()
	entries := p.Entries
	p.mu.Unlock()
	for _, e := range entries {
		if slices.Contains(e.Extensions, ext) {
			if _, err := p.LookPath(e.Command[0]); err == nil {
				return e, nil
			}
			names = append(names, e.Command[0])
		}
	}
	if len(names) == 0 {
		return Entry{}, fmt.Errorf("no language server is configured for %s files", cmp.Or(ext, "these"))
	}
	return Entry{}, fmt.Errorf("no language server for %s files on PATH (install %s)", ext, strings.Join(names, " or "))
}

// get is the server for the file: started on first use per entry and
// root, started again if it died.
func (p *Pool) get(ctx context.Context, path string) (*server, Entry, error) {
	e, err := p.entryFor(path)
	if err != nil {
		return nil, e, err
	}
	root := rootOf(filepath.Dir(path), e.RootMarkers)
	key := e.Name + "\x00" + root
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, e, fmt.Errorf("chatls is shutting down")
	}
	if s := p.servers[key]; s != nil && s.alive() {
		return s, e, nil
	}
	s, err := start(ctx, e.Command, root, e.Settings)
	if err != nil {
		return nil, e, err
	}
	p.servers[key] = s
	p.once.Do(func() { go p.reapIdle() })
	return s, e, nil
}

// reapIdle stops servers unused for Idle.
func (p *Pool) reapIdle() {
	tick := time.NewTicker(max(p.Idle/10, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		var idle []*server
		p.mu.Lock()
		for k, s := range p.servers {
			s.mu.Lock()
			unused := time.Since(s.lastUse) > p.Idle
			s.mu.Unlock()
			if unused || !s.alive() {
				idle = append(idle, s)
				delete(p.servers, k)
			}
		}
		p.mu.Unlock()
		for _, s := range idle {
			s.close()
		}
	}
}

// Close stops every server.
func (p *Pool) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.stop)
	servers := p.servers
	p.servers = map[string]*server{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.close)
	}
	wg.Wait()
}

// rootOf is the nearest directory holding a marker, else dir.
func rootOf(dir string, markers []string) string {
	for d := dir; ; d = filepath.Dir(d) {
		for _, m := range markers {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// extensionsOf is the file name endings of a filetype as a user writes it:
// a language name as editors call it ("python", "typescriptreact", as in
// nvim-lspconfig), or an extension with or without its dot ("py", ".py").
// A language name read as an extension (".python") matched no file, so
// the user's server lost to a built-in one that was not even installed.
func extensionsOf(ft string) []string {
	var exts []string
	for ext, id := range languageIDs {
		if id == ft {
			exts = append(exts, ext)
		}
	}
	if len(exts) > 0 {
		slices.Sort(exts)
		return exts
	}
	if !strings.HasPrefix(ft, ".") {
		ft = "." + ft
	}
	return []string{ft}
}

// ConfigureFrom applies the trusted settings' lsp.* (config.Effective.LSP).
func (p *Pool) ConfigureFrom(s config.LSPSettings) {
	servers := map[string]Entry{}
	for name, srv := range s.Servers {
		if len(srv.Command) == 0 {
			continue
		}
		e := Entry{Name: name, Command: srv.Command, RootMarkers: srv.RootMarkers, Settings: srv.Settings}
		for _, ft := range srv.Filetypes {
			e.Extensions = append(e.Extensions, extensionsOf(ft)...)
		}
		servers[name] = e
	}
	var idle, settle time.Duration
	if s.IdleTimeout != nil {
		idle = time.Duration(*s.IdleTimeout) * time.Second
	}
	if s.Settle != nil {
		settle = time.Duration(*s.Settle) * time.Millisecond
	}
	p.Configure(servers, idle, settle)
}

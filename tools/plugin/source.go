package plugin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/tools"
	"go.uber.org/zap"
)

// Defaults; tests shorten them through the unexported fields.
const (
	defaultInitTimeout = 10 * time.Second
	defaultBackoffMin  = 200 * time.Millisecond
	defaultBackoffMax  = 30 * time.Second
	// A process that lived this long before dying is not crash-looping.
	stableAfter = 10 * time.Second
	// Callers wait for a restart due sooner than this instead of failing.
	maxRestartWait = 2 * time.Second
	stopGrace      = 2 * time.Second
)

// Source is one configured plugin executable. It implements tools.Source.
type Source struct {
	cfg    config.Plugin
	logger *zap.Logger

	initTimeout            time.Duration
	maxLine                int
	backoffMin, backoffMax time.Duration

	loadMu sync.Mutex // serializes Load

	mu           sync.Mutex
	proc         *process      // the live process, nil while down
	restartDone  chan struct{} // non-nil while a restart is pending; closed when it ends
	restartAt    time.Time
	started      time.Time // when the live process was adopted
	crashes      int       // consecutive quick deaths or failed launches, for backoff
	launchFailed bool
	loaded       bool // a launch succeeded once: the tools are known
	lastErr      error
	specs        []toolSpec
	tools        []tools.Tool
	onChange     func([]tools.Tool)
	closed       bool
	closing      chan struct{}
	callSeq      uint64
}

var _ tools.Source = (*Source)(nil)

// NewSource prepares a plugin; nothing starts before Load.
func NewSource(cfg config.Plugin, logger *zap.Logger) *Source {
	if logger == nil {
		logger = zap.NewNop()
	}
	return &Source{
		cfg:         cfg,
		logger:      logger.With(zap.String("plugin", cfg.Name)),
		initTimeout: defaultInitTimeout,
		maxLine:     defaultMaxLine,
		backoffMin:  defaultBackoffMin,
		backoffMax:  defaultBackoffMax,
		closing:     make(chan struct{}),
	}
}

// Name is the source name the registry knows, equal to Definition.Source.
func (s *Source) Name() string { return "plugin:" + s.cfg.Name }

// OnToolsChanged registers fn to receive the new tool list when a restarted
// plugin declares different tools (typically registry.Replace).
func (s *Source) OnToolsChanged(fn func([]tools.Tool)) {
	s.mu.Lock()
	s.onChange = fn
	s.mu.Unlock()
}

// Load starts the plugin (once) and returns its tools. The process outlives
// ctx; ctx only bounds the init handshake. If the first launch fails, chatls
// keeps retrying in the background with the restart backoff, and the tools
// reach the registry through OnToolsChanged once a launch succeeds.
func (s *Source) Load(ctx context.Context) ([]tools.Tool, error) {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, s.closedError()
	case s.loaded:
		list := s.tools
		s.mu.Unlock()
		return list, nil
	case s.restartDone != nil:
		err := s.lastErr
		s.mu.Unlock()
		return nil, retrying(err)
	}
	s.mu.Unlock()
	if s.cfg.Path == "" {
		return nil, fmt.Errorf("plugin %s: no path configured", s.cfg.Name) // retrying cannot help
	}

	proc, specs, err := s.launch(ctx)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		if proc != nil {
			proc.stop(0) // not under s.mu: its exit handler takes it
		}
		return nil, s.closedError()
	}
	defer s.mu.Unlock()
	if err != nil {
		s.crashes++
		s.launchFailed = true
		s.lastErr = err
		go s.relaunch(s.newRestartLocked())
		return nil, retrying(err)
	}
	s.loaded = true
	s.specs = specs
	s.tools = s.buildTools(specs)
	s.adopt(proc)
	return s.tools, nil
}

// RetryNote ends the error of a failed first load that the source retries
// by itself (plugins and MCP servers alike). One-shot commands, which stop
// the sources right away, drop it.
const RetryNote = "; chatls retries in the background"

// retrying marks a failed first load that the source retries by itself.
func retrying(err error) error {
	return fmt.Errorf("%w"+RetryNote, err)
}

func (s *Source) closedError() error {
	return fmt.Errorf("plugin %s is stopped (chatls is shutting down or the config changed)", s.cfg.Name)
}

// Close stops the plugin and any restart.
func (s *Source) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	proc := s.proc
	s.proc = nil
	s.mu.Unlock()
	if proc != nil {
		proc.stop(stopGrace)
	}
	return nil
}

// launch starts a process and performs the init handshake.
func (s *Source) launch(ctx context.Context) (*process, []toolSpec, error) {
	if s.cfg.Path == "" {
		return nil, nil, fmt.Errorf("plugin %s: no path configured", s.cfg.Name)
	}
	// The registry's load timeout (tools.defaultTimeout) may be shorter than
	// the init timeout: then it is the limit, so the user still learns why.
	// Measured before the exec, which may take a while on a busy machine.
	limit, shown := loadLimit(ctx, s.initTimeout)
	start := time.Now()
	proc, err := startProcess(s.cfg.Name, expandHome(s.cfg.Path), s.cfg.Args, s.environ(), s.maxLine, s.logger, s.handleExit)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*process, []toolSpec, error) {
		proc.stop(0)
		return nil, nil, err
	}
	if err := proc.send(initRequest{Type: typeInit}); err != nil {
		<-proc.done
		return fail(fmt.Errorf("plugin %s exited before init: %v", s.cfg.Name, proc.err()))
	}
	timer := time.NewTimer(limit - time.Since(start))
	defer timer.Stop()
	noInit := func() (*process, []toolSpec, error) {
		// In the background: the answer is due now, not after the reaping.
		go proc.stop(0)
		return nil, nil, fmt.Errorf("plugin %s did not answer init within %s; check that it reads {\"type\":\"init\"} lines on stdin and answers on stdout", s.cfg.Name, shown)
	}
	select {
	case msg := <-proc.initCh:
		if err := validateTools(msg.Tools); err != nil {
			return fail(fmt.Errorf("plugin %s declared invalid tools: %v", s.cfg.Name, err))
		}
		return proc, msg.Tools, nil
	case <-proc.done:
		return nil, nil, fmt.Errorf("plugin %s exited during init: %v", s.cfg.Name, proc.err())
	case <-timer.C:
		return noInit()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return noInit()
		}
		return fail(fmt.Errorf("plugin %s: loading was cancelled", s.cfg.Name))
	case <-s.closing:
		return fail(s.closedError())
	}
}

// adopt makes proc the live process; called with s.mu held.
func (s *Source) adopt(proc *process) {
	s.proc = proc
	s.started = time.Now()
	if proc.err() != nil {
		// It died between init and now; onExit saw a stranger and did nothing.
		s.scheduleRestartLocked(proc)
	}
}

// handleExit is every process's onExit: if the live process died, restart it.
func (s *Source) handleExit(proc *process) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.proc != proc {
		return
	}
	s.scheduleRestartLocked(proc)
}

func (s *Source) scheduleRestartLocked(proc *process) {
	s.proc = nil
	s.lastErr = proc.err()
	if time.Since(s.started) < stableAfter {
		s.crashes++
	} else {
		s.crashes = 0
	}
	s.logger.Warn("plugin died; restarting", zap.Error(s.lastErr))
	go s.relaunch(s.newRestartLocked())
}

// newRestartLocked announces a restart attempt after the backoff delay.
func (s *Source) newRestartLocked() (done chan struct{}) {
	delay := s.backoff()
	s.restartDone = make(chan struct{})
	s.restartAt = time.Now().Add(delay)
	return s.restartDone
}

// relaunch retries with backoff until a process answers init or Close.
func (s *Source) relaunch(done chan struct{}) {
	for {
		s.mu.Lock()
		delay := time.Until(s.restartAt)
		s.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-s.closing:
			s.endRestart(done)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.initTimeout)
		proc, specs, err := s.launch(ctx)
		cancel()

		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			if proc != nil {
				proc.stop(0)
			}
			s.endRestart(done)
			return
		}
		if err != nil {
			s.crashes++
			s.launchFailed = true
			s.lastErr = err
			next := s.newRestartLocked()
			// Logged under s.mu: once Close has returned, nothing logs.
			s.logger.Warn("plugin restart failed", zap.Error(err))
			s.mu.Unlock()
			close(done)
			done = next
			continue
		}
		s.launchFailed = false
		s.restartDone = nil
		var changed []tools.Tool
		if !s.loaded || !slices.EqualFunc(specs, s.specs, sameSpec) {
			s.specs = specs
			s.tools = s.buildTools(specs)
			changed = s.tools // on a first success even an empty list: it clears the load error
		}
		s.loaded = true
		onChange := s.onChange
		s.adopt(proc)
		s.logger.Info("plugin restarted")
		s.mu.Unlock()
		close(done)
		if changed != nil && onChange != nil {
			onChange(changed)
		}
		return
	}
}

func (s *Source) endRestart(done chan struct{}) {
	s.mu.Lock()
	if s.restartDone == done {
		s.restartDone = nil
	}
	s.mu.Unlock()
	close(done)
}

// backoff doubles per consecutive crash, from backoffMin to backoffMax.
func (s *Source) backoff() time.Duration {
	d := s.backoffMin
	for i := 1; i < s.crashes && d < s.backoffMax; i++ {
		d *= 2
	}
	return min(d, s.backoffMax)
}

// acquire returns the live process, waiting for an imminent restart.
func (s *Source) acquire(ctx context.Context) (*process, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, s.closedError()
		case s.proc != nil:
			p := s.proc
			s.mu.Unlock()
			if p.err() == nil {
				return p, nil
			}
			// Dying right now: done closes once the source knows, so retry then.
			select {
			case <-p.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case s.restartDone != nil && !s.launchFailed && time.Until(s.restartAt) < maxRestartWait:
			done := s.restartDone
			s.mu.Unlock()
			select {
			case <-done:
				continue
			case <-ctx.Done():
				return nil, fmt.Errorf("plugin %s is restarting and was not ready in time: %w", s.cfg.Name, ctx.Err())
			}
		default:
			err, at := s.lastErr, s.restartAt
			s.mu.Unlock()
			if err == nil {
				return nil, fmt.Errorf("plugin %s is not running; it failed to load", s.cfg.Name)
			}
			return nil, fmt.Errorf("plugin %s is not running (%v); chatls retries in %s", s.cfg.Name, err, max(0, time.Until(at)).Round(100*time.Millisecond))
		}
	}
}

func (s *Source) nextCallID(toolUseID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.callSeq++
	if toolUseID == "" {
		return fmt.Sprintf("chatls-%d", s.callSeq)
	}
	return toolUseID
}

func (s *Source) environ() []string {
	env := keyenv.Environ()
	for k, v := range s.cfg.Env {
		env = append(env, k+"="+os.ExpandEnv(v))
	}
	return env
}

func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

func sameSpec(a, b toolSpec) bool {
	return a.Name == b.Name && a.Description == b.Description &&
		string(a.Parameters) == string(b.Parameters) && a.Preview == b.Preview
}

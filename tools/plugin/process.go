package plugin

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/internal/procsup"
	"github.com/chatls/chatls/tools/plugin/stderrlog"
	"go.uber.org/zap"
)

// writeTimeout bounds one write to the plugin's stdin: a plugin that stops
// reading is wedged and gets killed rather than blocking callers forever.
const writeTimeout = 10 * time.Second

// drainGrace is how long stdout may stay open after the plugin's group is
// gone (a daemon that escaped with setsid still holding it) before chatls
// stops reading.
const drainGrace = 2 * time.Second

// process is one running instance of a plugin executable. It owns the
// stdout reader and routes replies to waiting callers by call_id.
type process struct {
	name    string
	cmd     *exec.Cmd
	stdin   *os.File
	stderr  *stderrlog.Writer
	logger  *zap.Logger
	maxLine int

	writeMu sync.Mutex

	mu       sync.Mutex
	pending  map[string]chan reply
	initCh   chan initResponse // buffered 1; the init answer
	deathErr error             // why the process ended, set once
	killing  error             // reason we decided to kill it, if we did

	done chan struct{} // closed after the process is gone and callers are told
	// onExit runs once the process is gone, before waiting callers hear of it,
	// so that whoever sees the error also sees the source's new state.
	onExit func(*process)
}

type reply struct {
	msg resultMessage
	err error // the process died before answering
}

func startProcess(name, path string, args []string, env []string, maxLine int, logger *zap.Logger, onExit func(*process)) (*process, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	stderr := stderrlog.New(logger)
	cmd.Stderr = stderr
	// A grandchild holding stderr open must not hang Wait.
	cmd.WaitDelay = drainGrace
	procsup.Prepare(cmd)

	// Our own pipe for stdin so that writes can have a deadline.
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		stdinR.Close()
		stdinW.Close()
		return nil, fmt.Errorf("cannot start plugin %s (%s): %w", name, path, err)
	}
	stdinR.Close()
	p := &process{
		name:    name,
		cmd:     cmd,
		stdin:   stdinW,
		stderr:  stderr,
		logger:  logger,
		maxLine: maxLine,
		pending: make(map[string]chan reply),
		initCh:  make(chan initResponse, 1),
		done:    make(chan struct{}),
		onExit:  onExit,
	}
	readDone := make(chan struct{})
	go p.readLoop(stdout, readDone)
	go p.reap(readDone)
	return p, nil
}

// send writes one message as a JSON line.
func (p *process) send(msg any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	_ = p.stdin.SetWriteDeadline(time.Now().Add(writeTimeout))
	if _, err := p.stdin.Write(data); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			p.kill(fmt.Errorf("stopped reading its stdin for %s", writeTimeout))
		}
		return err
	}
	return nil
}

// register reserves call id for a reply; ok is false once the process died.
func (p *process) register(id string) (chan reply, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.deathErr != nil {
		return nil, false
	}
	if _, taken := p.pending[id]; taken {
		return nil, false
	}
	ch := make(chan reply, 1)
	p.pending[id] = ch
	return ch, true
}

func (p *process) unregister(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

func (p *process) isPending(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.pending[id]
	return ok
}

// readLoop owns stdout until EOF or a protocol violation.
func (p *process) readLoop(stdout io.Reader, done chan<- struct{}) {
	defer close(done)
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := readLine(r, p.maxLine)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.kill(err)
			}
			return
		}
		if len(line) == 0 {
			continue
		}
		if err := p.dispatch(line); err != nil {
			p.kill(err)
			return
		}
	}
}

// reap ends the process's life: once the plugin itself has exited, whatever
// it left running in its group is killed (a clean exit on EOF included), the
// rest of stdout is read, and waiting callers are told.
func (p *process) reap(readDone <-chan struct{}) {
	var waitErr error
	if procsup.WaitLeader(p.cmd) {
		procsup.Kill(p.cmd)
		select {
		case <-readDone:
		case <-time.After(drainGrace):
		}
		waitErr = p.cmd.Wait() // closes stdout, ending a read held open by an escaped daemon
		<-readDone
	} else {
		<-readDone
		waitErr = p.cmd.Wait()
		procsup.Kill(p.cmd)
	}
	p.stderr.Flush()
	p.finish(waitErr)
}

// dispatch routes one line; an error means the plugin broke the protocol.
func (p *process) dispatch(line []byte) error {
	var msg inbound
	if err := json.Unmarshal(line, &msg); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Errorf("printed something that is not a protocol message on stdout: %q (logs belong on stderr)", clip.Bytes(string(line), 80))
		}
		return fmt.Errorf("sent a malformed message: %v: %q", err, clip.Bytes(string(line), 80))
	}
	switch msg.Type {
	case typeInit:
		select {
		case p.initCh <- initResponse{Type: msg.Type, Tools: msg.Tools}:
		default:
			p.logger.Warn("plugin sent init twice; ignoring the second")
		}
	case typeResult:
		p.mu.Lock()
		ch, ok := p.pending[msg.CallID]
		delete(p.pending, msg.CallID)
		p.mu.Unlock()
		if !ok {
			// Usually the answer to a call we stopped waiting for.
			p.logger.Debug("result for an unknown call_id", zap.String("call_id", msg.CallID))
			return nil
		}
		ch <- reply{msg: resultMessage{Type: msg.Type, CallID: msg.CallID, Content: msg.Content, IsError: msg.IsError}}
	default:
		p.logger.Debug("ignoring message of unknown type", zap.String("type", msg.Type))
	}
	return nil
}

// kill stops the process for reason; callers waiting get reason in their error.
func (p *process) kill(reason error) {
	p.mu.Lock()
	if p.killing == nil {
		p.killing = reason
	}
	p.mu.Unlock()
	procsup.Kill(p.cmd)
}

// finish records why the process ended and fails every pending call.
func (p *process) finish(waitErr error) {
	p.mu.Lock()
	reason := p.killing
	switch {
	case reason != nil:
	case waitErr != nil:
		reason = fmt.Errorf("exited: %v", waitErr)
	default:
		reason = errors.New("exited")
	}
	if last := p.stderr.LastLine(); last != "" {
		reason = fmt.Errorf("%w (last stderr line: %q)", reason, clip.Bytes(last, 200))
	}
	p.deathErr = reason
	pending := p.pending
	p.pending = nil
	p.mu.Unlock()
	if p.onExit != nil {
		p.onExit(p)
	}
	for _, ch := range pending {
		ch <- reply{err: reason}
	}
	p.stdin.Close()
	close(p.done)
}

// err is why the process ended, nil while it runs.
func (p *process) err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.deathErr
}

// stop closes stdin so a well-behaved plugin exits, else kills its group
// after grace; it returns once the plugin is reaped and its group killed.
func (p *process) stop(grace time.Duration) {
	p.mu.Lock()
	if p.killing == nil {
		p.killing = errors.New("stopped by chatls")
	}
	p.mu.Unlock()
	// Without writeMu: closing also unblocks a write stuck on a full pipe.
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(grace):
		procsup.Kill(p.cmd)
		<-p.done
	}
}

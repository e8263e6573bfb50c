package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/internal/fileuri"
	"github.com/chatls/chatls/session"
)

// Exit codes of chatls send (SPEC §7 "Commands and CLI").
const (
	Done    = 0 // the model ended its turn
	Failed  = 1 // an error; the message is on stderr
	Pending = 2 // a call waits for approval
	Guarded = 3 // a guard (or --max-turns) stopped the chain
	// Interrupted is Ctrl-C or SIGTERM, as a shell reports SIGINT.
	Interrupted = 130
)

// Options are chatls send's flags.
type Options struct {
	MaxTurns   int
	Model      string
	ConfigPath string
	Logger     *zap.Logger
	// StateDir overrides $XDG_STATE_HOME/chatls.
	StateDir string
}

// Run is `chatls send FILE`: it opens FILE in a session of its own, takes
// the next step, sends, lets the autopilot run what the policy approves and
// send again, and ends when the agent does or interrupted is done (Ctrl-C:
// the request stops, the abort marker is written). name is FILE as the
// user wrote it, for messages. The error is the one line to print.
func Run(name string, o Options, interrupted context.Context, stdout, stderr io.Writer) (int, error) {
	settings := map[string]any{"autopilot": true}
	if o.Model != "" {
		settings["model"] = o.Model
	}
	if o.MaxTurns > 0 {
		settings["send"] = map[string]any{"maxTurns": o.MaxTurns}
	}
	r, closeFile, err := openFile(name, o, settings, interrupted, stderr)
	if err != nil {
		return Failed, err
	}
	defer closeFile()
	return r.drive(stdout)
}

// openFile opens FILE in a session of its own, with FILE as its editor,
// under FILE's send lock; closeFile stops the session (its tools, their
// process groups, its files) and releases the lock.
func openFile(name string, o Options, settings map[string]any, interrupted context.Context, stderr io.Writer) (r *run, closeFile func(), err error) {
	path, err := filepath.Abs(name)
	if err != nil {
		return nil, nil, err
	}
	// A symlink is the user's: the file it points at is written, the link kept.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	stateDir := o.StateDir
	if stateDir == "" {
		stateDir = config.StateDir()
	}
	lock, err := docfile.Acquire(filepath.Join(stateDir, "locks"), path)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*run, func(), error) {
		lock.Release()
		return nil, nil, err
	}
	stat, err := os.Stat(path)
	if err != nil {
		return fail(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	if err := docfile.CheckWritable(path); err != nil {
		return fail(err)
	}
	root, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	uri := fileuri.FromPath(path)
	ed := newFileEditor(path, uri, string(data), stat, stderr)
	sess := session.New(session.Options{Logger: o.Logger, UserConfigPath: o.ConfigPath, StateDir: stateDir, SendLockHeld: path, SandboxWhenNeeded: true}, ed)
	ed.sess = sess
	sess.Start([]string{root}, chatdoc.UTF8, settings)
	r = &run{sess: sess, ed: ed, d: sess.Open(uri, string(data), 1), name: name, interrupted: interrupted, stderr: stderr}
	// Tools stop, their process groups die and files close before the
	// command returns: nothing it started outlives it.
	return r, func() { sess.Close(); lock.Release() }, nil
}

// run is one chatls send.
type run struct {
	sess        *session.Session
	ed          *fileEditor
	d           *session.Doc
	name        string
	interrupted context.Context
	stderr      io.Writer
}

func (r *run) drive(stdout io.Writer) (int, error) {
	before := r.sess.Status(r.d)
	if before.Waiting > 0 && before.Waiting == before.Pending {
		// Calls already wait for the user: nothing is sent (SPEC §7, exit 2).
		return r.finish(Pending, before, stdout)
	}
	ctx := context.Background()
	// The next step comes first, as the editor's next-step key would take
	// it: approved calls run (the user approved them by editing FILE, or
	// the journal has their result), tool calls of a pasted answer get
	// their placeholders. Then the conversation is sent.
	if before.Pending > before.Waiting || !before.Ready {
		r.sess.Advance(ctx, r.d)
		st, err := r.await(func(st session.Status) bool {
			return st.Sending || st.Running == 0 && st.Pending == st.Waiting
		})
		if st.Sending && err == nil { // the step went on to send by itself
			st, err = r.await(agentDone)
		}
		if err != nil || st.Waiting > 0 || st.Sending {
			return r.ended(st, err, stdout)
		}
	}
	if err := r.sess.Send(ctx, r.d); err != nil {
		var refused *session.RefusedError
		if errors.As(err, &refused) {
			err = errors.New(refused.Reason)
		}
		if werr := r.ed.failure(); werr != nil {
			err = werr
		}
		return Failed, r.unlessPrinted(err)
	}
	st, err := r.await(agentDone)
	return r.ended(st, err, stdout)
}

// agentDone says the agent stopped: the turn ended, a call waits, a guard
// or an error stopped it.
func agentDone(st session.Status) bool { _, done := outcome(st); return done }

// filePoll is how often chatls send looks at FILE while an answer
// streams: the approval of an agent's permission is an edit of FILE.
const filePoll = 500 * time.Millisecond

// errInterrupted: Ctrl-C or SIGTERM ended the request.
var errInterrupted = errors.New("interrupted")

// await waits until done says the status is reached, or the user
// interrupts: then the request is cancelled and await returns
// errInterrupted once nothing streams any more. A write that failed ends
// it with that error.
func (r *run) await(done func(session.Status) bool) (session.Status, error) {
	cancelled, toldJobs := false, false
	for {
		next := r.ed.next()
		if err := r.ed.failure(); err != nil {
			return session.Status{}, err
		}
		if err := r.ed.sync(); err != nil {
			return session.Status{}, err
		}
		st := r.sess.Status(r.d)
		if cancelled && !st.Sending {
			return st, errInterrupted
		}
		if !cancelled && done(st) {
			return st, nil
		}
		if st.Jobs > 0 && !st.Sending && st.Running == 0 && !toldJobs {
			// Only a background job is left: say what chatls send waits for.
			toldJobs = true
			fmt.Fprintf(r.stderr, "chatls send: waiting for %d background job(s); their results go into %s (Ctrl-C ends them)\n", st.Jobs, r.name)
		}
		var poll <-chan time.Time
		if st.Sending {
			// An external agent may wait for the user's approval, made by
			// editing FILE: look at FILE again now and then.
			poll = time.After(filePoll)
		}
		select {
		case <-next: // an edit, a new status, a message
		case <-poll:
		case <-r.interrupted.Done():
			if !cancelled {
				cancelled = true
				r.sess.CancelSend(r.d) // returns once the request ended; the marker follows
			}
		}
	}
}

// ended is chatls send's exit code and message for the status await ended on.
func (r *run) ended(st session.Status, err error, stdout io.Writer) (int, error) {
	switch {
	case errors.Is(err, errInterrupted):
		return Interrupted, fmt.Errorf("interrupted; the answer so far and the abort marker are in %s", r.name)
	case err != nil:
		return Failed, err
	}
	code, _ := outcome(st)
	return r.finish(code, st, stdout)
}

// outcome says whether the agent is done and how: nothing streams or runs,
// and the chain is over or waits for the user.
func outcome(st session.Status) (int, bool) {
	if st.Sending || st.Running > 0 || st.Jobs > 0 {
		// A background job's result goes into FILE before chatls send
		// ends: leaving would end the job with it.
		return 0, false
	}
	armed := st.Chain != nil && st.Chain.Armed
	switch {
	case st.Waiting > 0 && st.Waiting == st.Pending:
		return Pending, true // nothing else will move until the user approves
	case armed || st.Pending > 0:
		return 0, false // results are being written, or the next send starts
	case st.Guarded():
		return Guarded, true
	case st.Problem != "":
		return Failed, true
	}
	return Done, true
}

// finish prints what the exit code needs: the calls that wait, or why the
// chain stopped.
func (r *run) finish(code int, st session.Status, stdout io.Writer) (int, error) {
	switch code {
	case Pending:
		doc := chatdoc.Parse(r.ed.text())
		for _, res := range doc.ToolResults() {
			if res.Status != chatdoc.StatusPending {
				continue
			}
			name := "?"
			if u := doc.ToolUse(res.ID); u != nil {
				name = u.Name
			}
			line := doc.Lines.Position(res.Span.Start, chatdoc.UTF8).Line + 1
			fmt.Fprintf(stdout, "pending: %s %s at %s:%d\n", name, res.ID, r.name, line)
		}
		return code, nil
	case Guarded, Failed:
		return code, r.unlessPrinted(errors.New(st.Problem))
	}
	return code, nil
}

// unlessPrinted is err, or nil when the session already printed it as a
// message: every way of stopping prints one line.
func (r *run) unlessPrinted(err error) error {
	if r.ed.printed(err.Error()) {
		return nil
	}
	return err
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/internal/lspclient"
)

// Exit codes of chatls send (SPEC §7 "Commands and CLI").
const (
	sendDone    = 0 // the model ended its turn
	sendFailed  = 1 // an error; the message is on stderr
	sendPending = 2 // a call waits for approval
	sendGuarded = 3 // a guard (or --max-turns) stopped the chain
	// sendInterrupted is Ctrl-C or SIGTERM, as a shell reports SIGINT.
	sendInterrupted = 130
)

// runSend is `chatls send FILE`: the agent in a terminal, on the same
// files. It drives this executable as a language server over pipes — the
// very code the editors use — with the file as the one open document,
// sends it, lets the autopilot run what the policy approves and send
// again, and writes the document back to FILE as it changes.
func runSend(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatls send", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxTurns := fs.Int("max-turns", 0, "stop after this many requests (default send.maxTurns)")
	model := fs.String("model", "", "the model, or PROVIDER/MODEL;key=value (default: the settings')")
	configPath := fs.String("config", "", "user config file")
	logFile := fs.String("log-file", "", "the server's log file")
	logLevel := fs.String("log-level", "warn", "the server's log level")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: chatls send [--max-turns N] [--model M] FILE")
		return 2
	}
	if configMissing(*configPath, stderr) {
		return 2
	}
	code, err := sendFile(fs.Arg(0), sendOptions{maxTurns: *maxTurns, model: *model, config: *configPath, logFile: *logFile, logLevel: *logLevel}, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "chatls send:", err)
	}
	return code
}

type sendOptions struct {
	maxTurns          int
	model, config     string
	logFile, logLevel string
	timeout           time.Duration // 0: none (a chain may run long)
}

func sendFile(file string, o sendOptions, stdout io.Writer) (int, error) {
	return sendFileTo(file, o, stdout, os.Stderr)
}

func sendFileTo(file string, o sendOptions, stdout, stderr io.Writer) (int, error) {
	path, err := filepath.Abs(file)
	if err != nil {
		return sendFailed, err
	}
	// A symlink is the user's: the file it points at is written, the link kept.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	lock, err := docfile.Acquire(filepath.Join(config.StateDir(), "locks"), path)
	if err != nil {
		return sendFailed, err
	}
	defer lock.Release()
	data, err := os.ReadFile(path)
	if err != nil {
		return sendFailed, err
	}
	if err := docfile.CheckWritable(path); err != nil {
		return sendFailed, err
	}
	self, err := os.Executable()
	if err != nil {
		return sendFailed, err
	}
	root, err := os.Getwd()
	if err != nil {
		return sendFailed, err
	}
	settings := map[string]any{"autopilot": true}
	if o.model != "" {
		settings["model"] = o.model
	}
	if o.maxTurns > 0 {
		settings["send"] = map[string]any{"maxTurns": o.maxTurns}
	}
	serverArgs := []string{"--log-level", o.logLevel}
	if o.logFile != "" {
		serverArgs = append(serverArgs, "--log-file", o.logFile)
	}
	if o.config != "" {
		serverArgs = append(serverArgs, "--config", o.config)
	}
	ctx := context.Background()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	// Ctrl-C and SIGTERM end the request; the abort marker and @You: are
	// written before chatls send exits 130.
	interrupted, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	// The server it starts sends FILE under the lock this process holds.
	env := append(os.Environ(), "CHATLS_SEND_LOCK_HELD="+path)
	c, err := lspclient.Start(ctx, self, serverArgs, env, lspclient.Options{RootDir: root, InitializationOptions: settings, Configuration: settings})
	if err != nil {
		return sendFailed, err
	}
	defer shutdownWithin(c, 10*time.Second)
	if _, err := c.Initialize(ctx); err != nil {
		return sendFailed, fmt.Errorf("initialize: %w", err)
	}
	uri := lspclient.PathURI(path)
	if err := c.Open(ctx, uri, string(data)); err != nil {
		return sendFailed, err
	}
	call := func(command string, out any) error {
		return c.Call(ctx, "workspace/executeCommand", map[string]any{"command": command, "arguments": []any{map[string]any{"uri": uri}}}, out)
	}
	f := &sentFile{path: path, uri: uri, written: string(data), warn: stderr}
	f.stat, _ = os.Stat(path)
	var before sendStatus
	if err := call("chatls.status", &before); err != nil {
		return sendFailed, err
	}
	if before.Waiting > 0 && before.Waiting == before.Pending {
		// Calls already wait for the user: nothing is sent (SPEC §7, exit 2).
		return finishSend(sendPending, before, chatdoc.Parse(f.written), file, stdout)
	}
	// The next step comes first, as the editor's next-step key would take
	// it: approved calls run (the user approved them by editing FILE, or
	// the journal has their result), tool calls of a pasted answer get
	// their placeholders. Then the conversation is sent.
	if before.Pending > before.Waiting || !before.Ready {
		var advanced map[string]any
		if err := call("chatls.advance", &advanced); err != nil {
			return sendFailed, errors.New(rpcMessage(err))
		}
		st, err := f.await(ctx, c, interrupted, call, func(st sendStatus) bool {
			return st.Sending || st.Running == 0 && st.Pending == st.Waiting
		})
		if st.Sending && err == nil { // the step went on to send by itself
			st, err = f.await(ctx, c, interrupted, call, agentDone)
		}
		if err != nil || st.Waiting > 0 || st.Sending {
			return f.ended(st, err, file, stdout)
		}
	}
	var started map[string]any
	if err := call("chatls.send", &started); err != nil {
		// A refusal may have edited the document first (an answer a crash
		// cut off is closed): the file gets that edit.
		if werr := f.sync(ctx, c); werr != nil {
			return sendFailed, werr
		}
		return sendFailed, errors.New(rpcMessage(err))
	}
	st, err := f.await(ctx, c, interrupted, call, agentDone)
	return f.ended(st, err, file, stdout)
}

// agentDone says the agent stopped: the turn ended, a call waits, a guard or an error stopped it.
func agentDone(st sendStatus) bool { _, done := st.outcome(); return done }

// errInterrupted: Ctrl-C or SIGTERM ended the request.
var errInterrupted = errors.New("interrupted")

// await writes the server's edits into FILE until done says the status is
// reached, or the user interrupts: then the request is cancelled and await
// returns errInterrupted once nothing streams any more.
func (f *sentFile) await(ctx context.Context, c *lspclient.Client, interrupted context.Context, call func(string, any) error, done func(sendStatus) bool) (sendStatus, error) {
	cancelled := false
	for {
		seen := len(c.Events())
		var st sendStatus
		if err := call("chatls.status", &st); err != nil {
			return st, err
		}
		if err := f.sync(ctx, c); err != nil {
			return st, err
		}
		if cancelled && !st.Sending {
			return st, errInterrupted
		}
		if !cancelled && done(st) {
			return st, nil
		}
		// Something will happen: an edit, a diagnostics publish, progress.
		waitCtx, stopWait := context.WithCancel(ctx)
		go func() {
			select {
			case <-interrupted.Done():
			case <-waitCtx.Done():
			}
			stopWait()
		}()
		err := c.WaitForCtx(waitCtx, "the agent's next step", func(s *lspclient.State) bool { return len(s.Events()) > seen })
		stopWait()
		if interrupted.Err() != nil && !cancelled {
			cancelled = true
			var out map[string]any
			_ = c.Call(ctx, "workspace/executeCommand", map[string]any{"command": "chatls.cancel", "arguments": []any{map[string]any{"uri": f.uri}}}, &out)
			continue
		}
		if err != nil && !cancelled {
			return st, err
		}
	}
}

// ended is chatls send's exit code and message for the status await ended on.
func (f *sentFile) ended(st sendStatus, err error, file string, stdout io.Writer) (int, error) {
	switch {
	case errors.Is(err, errInterrupted):
		return sendInterrupted, fmt.Errorf("interrupted; the answer so far and the abort marker are in %s", file)
	case err != nil:
		return sendFailed, err
	}
	code, _ := st.outcome()
	return finishSend(code, st, chatdoc.Parse(f.written), file, stdout)
}

// sendStatus is chatls.status's answer.
type sendStatus struct {
	Pending int  `json:"pending"`
	Waiting int  `json:"waiting"`
	Running int  `json:"running"`
	Ready   bool `json:"ready"`
	Sending bool `json:"sending"`
	Chain   *struct {
		Armed bool `json:"armed"`
	} `json:"chain"`
	Problem string `json:"problem"`
}

// outcome says whether the agent is done and how: nothing streams or runs,
// and the chain is over or waits for the user.
func (st sendStatus) outcome() (int, bool) {
	if st.Sending || st.Running > 0 {
		return 0, false
	}
	armed := st.Chain != nil && st.Chain.Armed
	switch {
	case st.Waiting > 0 && st.Waiting == st.Pending:
		return sendPending, true // nothing else will move until the user approves
	case armed || st.Pending > 0:
		return 0, false // results are being written, or the next send starts
	case strings.HasPrefix(st.Problem, "Autopilot stopped"):
		return sendGuarded, true
	case st.Problem != "":
		return sendFailed, true
	}
	return sendDone, true
}

func finishSend(code int, st sendStatus, doc *chatdoc.Document, file string, stdout io.Writer) (int, error) {
	switch code {
	case sendPending:
		for _, r := range doc.ToolResults() {
			if r.Status != chatdoc.StatusPending {
				continue
			}
			name := "?"
			if u := doc.ToolUse(r.ID); u != nil {
				name = u.Name
			}
			line := doc.Lines.Position(r.Span.Start, chatdoc.UTF8).Line + 1
			fmt.Fprintf(stdout, "pending: %s %s at %s:%d\n", name, r.ID, file, line)
		}
		return code, nil
	case sendGuarded, sendFailed:
		return code, errors.New(st.Problem)
	}
	return code, nil
}

// rpcMessage is a JSON-RPC error's message without the library's prefix
// ("jsonrpc2: code -32803 message: …").
func rpcMessage(err error) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "message: "); ok {
		return after
	}
	return msg
}

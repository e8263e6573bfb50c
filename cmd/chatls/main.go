// Command chatls is the chatls language server and its command-line tools
// (SPEC §6). With no subcommand it serves LSP on stdin/stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/chatls/chatls/server"
	"github.com/chatls/chatls/tools"
)

// serverGCPercent is the server's GOGC unless the environment sets one.
const serverGCPercent = 50

// tuneGC sets the server's GOGC. Nearly all of a language server's heap is
// live (the documents and their parses), so the default GOGC=100 keeps as
// much again in garbage: with a 10 MB conversation, 53 MB of the server's
// own memory after typing instead of 42 (docs/performance.md). Typing
// makes little garbage, so collecting twice as often costs little.
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(serverGCPercent)
	}
}

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "parse":
			return runParse(args[1:], stdout, stderr)
		case "check":
			return runCheck(args[1:], stdout, stderr)
		case "policy":
			return runPolicy(args[1:], stdout, stderr)
		case "tools":
			return runTools(args[1:], stdout, stderr)
		case "demo":
			return runDemo(args[1:], stdout, stderr)
		case "send":
			return runSend(args[1:], stdout, stderr)
		case "compact":
			return runCompact(args[1:], stdout, stderr)
		case "checkpoints":
			return runCheckpoints(args[1:], stdout, stderr)
		case "rewind":
			return runRewind(args[1:], stdout, stderr)
		case "help", "-h", "--help":
			usage(stdout)
			return 0
		}
	}
	fs := flag.NewFlagSet("chatls", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("stdio", true, "serve LSP on stdin/stdout (the default; accepted and ignored)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn, error")
	configPath := fs.String("config", "", "user config file (default $XDG_CONFIG_HOME/chatls/config.toml)")
	fs.Usage = func() { usage(stderr) }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, "chatls", version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "chatls: unknown command %q (run chatls help)\n", fs.Arg(0))
		return 2
	}
	if configMissing(*configPath, stderr) {
		return 2
	}
	if interactive(stdin) {
		fmt.Fprintln(stderr, ttyNote)
	}
	logger, closeLog, err := newLogger(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "chatls:", err)
		return 2
	}
	defer closeLog()
	if path := os.Getenv("CHATLS_CPUPROFILE"); path != "" {
		stopProfile, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintln(stderr, "chatls:", err)
			return 2
		}
		defer stopProfile()
	}
	tuneGC(os.Getenv)
	srv := server.New(server.Options{
		Logger:         logger,
		Version:        version,
		UserConfigPath: *configPath,
	})
	stop := handleSignals(srv, logger)
	code := srv.Serve(stdioPipe{stdin, stdout})
	// Serve cancelled its tools; this also ends any a stuck goroutine missed.
	tools.KillAll()
	if sig := stop(); sig != 0 {
		return 128 + int(sig) // the shell's convention for "ended by signal N"
	}
	return code
}

// signalGrace bounds the cleanup after a signal.
const signalGrace = 10 * time.Second

// handleSignals ends the session cleanly on SIGTERM, SIGINT and SIGHUP:
// Serve returns once running tools are cancelled (process groups killed)
// and plugin and MCP sources are stopped. Without it the default action
// kills chatls at once and a tool's children outlive it. SIGPIPE is
// ignored so that an editor closing its end makes writes fail and the read
// side end the session, instead of killing chatls mid-cleanup. stop
// reports the signal that ended the session, if any.
func handleSignals(srv *server.Server, logger *zap.Logger) (stop func() syscall.Signal) {
	signal.Ignore(syscall.SIGPIPE)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			got.Store(int32(sig.(syscall.Signal)))
			logger.Info("signal received: stopping tools and exiting", zap.String("signal", sig.String()))
			srv.Terminate()
			tools.KillAll() // at once: it does not wait, the supervisors finish the job
			// Cleanup is bounded; a second signal or a stuck cleanup ends it now.
			select {
			case <-sigs:
			case <-time.After(signalGrace):
			case <-done:
				return
			}
			tools.KillAll()
			os.Exit(128 + int(sig.(syscall.Signal)))
		case <-done:
		}
	}()
	return func() syscall.Signal {
		signal.Stop(sigs)
		close(done)
		return syscall.Signal(got.Load())
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `chatls — LLM tool calls under human control, in any editor.

usage:
  chatls [--stdio] [--log-file F] [--log-level L] [--config F]   serve LSP on stdio
  chatls --version
  chatls demo                              play the whole approval cycle on a sample
  chatls send [--max-turns N] [--model M] FILE
                                           send FILE to the model, run what the policy
                                           approves, repeat; exit 0 done, 1 error,
                                           2 a call waits for approval, 3 a guard stopped
  chatls compact [--model M] FILE          move the older turns into FILE's archive and
                                           put the model's summary in their place
  chatls compact --trim FILE               trim FILE's old tool outputs over 2 KB to their
                                           first lines, the whole outputs into its archive
  chatls checkpoints FILE                  the calls of FILE that changed files, and what
  chatls rewind FILE --to ID [--dry-run] [--conversation] [--overwrite]
                                           put the files back as before call ID (and every
                                           later call); exit 3 when files you changed since
                                           were left alone
  chatls rewind FILE --undo                take the last rewind back
  chatls check FILE...                     diagnostics as file:line:col: severity: message
  chatls parse --json FILE                 the parsed document as JSON
  chatls policy check TOOL 'JSON' [--file DOC.chat]   the policy decision and its trace
  chatls tools [--json]                    the tools chatls can run
`)
}

// newLogger logs to stderr or a file, never to stdout (stdout is the LSP stream).
func newLogger(file, level string, stderr io.Writer) (*zap.Logger, func(), error) {
	var lvl zapcore.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	out := zapcore.AddSync(stderr)
	closeFn := func() {}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		out = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	}
	enc := zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.Lock(out), lvl)), closeFn, nil
}

// stdioPipe joins stdin and stdout into the server's stream.
type stdioPipe struct {
	io.Reader
	io.Writer
}

func (stdioPipe) Close() error { return nil }

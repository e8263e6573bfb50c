package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/chatls/chatls/terminal"
	"github.com/chatls/chatls/tools"
)

// runSend is `chatls send FILE`: the agent in a terminal, on the same
// files. The session runs in this process with FILE as its editor
// (package terminal): every change is written to FILE atomically.
func runSend(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatls send", flag.ContinueOnError)
	fs.SetOutput(stderr)
	maxTurns := fs.Int("max-turns", 0, "stop after this many requests (default send.maxTurns)")
	model := fs.String("model", "", "the model, or PROVIDER/MODEL;key=value (default: the settings')")
	configPath := fs.String("config", "", "user config file")
	logFile := fs.String("log-file", "", "the log file (default: stderr)")
	logLevel := fs.String("log-level", "warn", "the log level")
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
	logger, closeLog, err := newLogger(*logFile, *logLevel, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "chatls send:", err)
		return 2
	}
	defer closeLog()
	if path := os.Getenv("CHATLS_CPUPROFILE"); path != "" {
		stopProfile, err := startCPUProfile(path)
		if err != nil {
			fmt.Fprintln(stderr, "chatls send:", err)
			return 2
		}
		defer stopProfile()
	}
	// No tuneGC: a send lives for one answer and decoding the stream makes
	// mostly garbage, so Go's default GOGC costs less CPU than the server's
	// (collecting twice as often pays off only for a long-lived heap).
	// Ctrl-C and SIGTERM end the request; the abort marker and @You: are
	// written before chatls send exits 130.
	interrupted, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	code, err := terminal.Run(fs.Arg(0), terminal.Options{MaxTurns: *maxTurns, Model: *model, ConfigPath: *configPath, Logger: logger}, interrupted, stdout, stderr)
	// The session stopped its tools; this also ends any a stuck goroutine missed.
	tools.KillAll()
	if err != nil {
		fmt.Fprintln(stderr, "chatls send:", err)
	}
	return code
}

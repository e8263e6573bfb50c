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
)

// runCompact is `chatls compact FILE` (SPEC §11): the conversation's older
// turns move into an archive beside it, and the model's summary takes
// their place; with --trim, only the old tool outputs shrink (Trim old
// tool outputs).
func runCompact(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatls compact", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "the model that writes the summary (default: context.summaryModel, else the document's)")
	trim := fs.Bool("trim", false, "trim old tool outputs over 2 KB instead (the cheaper step; no model is asked)")
	configPath := fs.String("config", "", "user config file")
	if err := fs.Parse(reorderFlags(args)); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: chatls compact [--model M | --trim] FILE")
		return 2
	}
	if configMissing(*configPath, stderr) {
		return 2
	}
	logger, closeLog, err := newLogger("", "warn", stderr)
	if err != nil {
		fmt.Fprintln(stderr, "chatls compact:", err)
		return 2
	}
	defer closeLog()
	interrupted, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run := terminal.Compact
	if *trim {
		run = terminal.Trim
	}
	code, err := run(fs.Arg(0), terminal.Options{Model: *model, ConfigPath: *configPath, Logger: logger}, interrupted, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "chatls compact:", err)
	}
	return code
}

package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/chatls/chatls/chatdoc"
)

// runParse implements `chatls parse --json FILE` (SPEC §6).
func runParse(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the document as one JSON object")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if !*asJSON || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: chatls parse --json FILE")
		return 2
	}
	text, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "chatls parse: %v\n", err)
		return 2
	}
	doc := chatdoc.Parse(string(text))
	out, err := chatdoc.ParseJSON(doc, checkDiagnostics(doc))
	if err != nil {
		fmt.Fprintf(stderr, "chatls parse: %v\n", err)
		return 2
	}
	stdout.Write(append(out, '\n'))
	return 0
}

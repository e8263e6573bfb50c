package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/chatls/chatls/chatdoc"
)

// runParse implements `chatls parse --json FILE` (SPEC §6); the flag may
// also follow the file (`chatls parse FILE --json`).
func runParse(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the document as one JSON object")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if !*asJSON || len(files) != 1 {
		fmt.Fprintln(stderr, "usage: chatls parse --json FILE")
		return 2
	}
	name := files[0]
	text, err := readWhole(name)
	if err != nil {
		fmt.Fprintf(stderr, "chatls parse: %v\n", err)
		return 2
	}
	doc := chatdoc.ParseOnce(bytesAsString(text)) // the bytes are never written: no copy
	out, err := chatdoc.ParseJSON(doc, documentDiagnostics(doc, name))
	if err != nil {
		fmt.Fprintf(stderr, "chatls parse: %v\n", err)
		return 2
	}
	stdout.Write(append(out, '\n'))
	return 0
}

// parseInterspersed parses flags before, between and after the positional
// arguments, which it returns in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

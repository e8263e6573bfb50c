package main

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/workers"
)

// chatdoc parses with the standard library alone; the program gives it the
// second core (with the caller's panic-on-fault setting, which `chatls
// check` turns on): on one core `chatls check` of the dense 10 MB document
// takes a seventh longer in its least disturbed runs (docs/performance.md,
// "Retirements").
func init() { chatdoc.Accelerate(chatdoc.Accel{Parallel: workers.Run}) }

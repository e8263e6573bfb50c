package main

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/workers"
)

// chatdoc parses on one core by itself; the program gives it the second
// (with the caller's panic-on-fault setting, which `chatls check` turns
// on): the dense 10 MB document's body scan is two halves of ~7 ms each
// when a core is free (docs/performance.md, "Retirements": kept).
func init() { chatdoc.Accelerate(chatdoc.Accel{Parallel: workers.Run}) }

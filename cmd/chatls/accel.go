package main

import (
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/jsonfast"
	"github.com/chatls/chatls/internal/workers"
)

// chatdoc parses with the standard library alone; the program gives it the
// second core (with the caller's panic-on-fault setting, which `chatls
// check` turns on) and the JSON reader a 10 MB parse is measured with:
// encoding/json's validator alone makes it slower by more than a tenth
// (docs/performance.md, "chatdoc without a JSON reader of its own").
func init() {
	chatdoc.Accelerate(chatdoc.Accel{Parallel: workers.Run,
		IsObjectWithin: jsonfast.IsObjectWithin, DecodeObject: jsonfast.DecodeObject})
}

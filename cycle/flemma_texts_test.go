package cycle

import (
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// Flemma's utilities spec, describe("flemma.messages") "migration
// fidelity (framework strings)": the fixed texts chatls writes into
// results are Flemma's, word for word. Where chatls's text differs on
// purpose (the running job, a rejection with feedback, an output that
// could not be saved) docs/format.md says so.
func TestFlemmaFixedTexts(t *testing.T) {
	for _, c := range []struct{ key, flemma, chatls string }{
		{"tool.denied", "The tool was denied by a policy.", TextDenied},
		{"tool.rejected", "This tool has been rejected by the user.", TextRejected},
		{"tool.aborted", "User aborted tool execution.", TextCancelled},
		{"job.lost", "Job lost: session ended before completion.", chatdoc.JobLost},
		{"request.aborted", "Response interrupted by the user.", TextAborted},
		{"request.aborted (the abort marker)", "Response interrupted by the user.", chatdoc.AbortedByUser},
	} {
		if c.chatls != c.flemma {
			t.Errorf("%s: chatls writes %q, Flemma %q", c.key, c.chatls, c.flemma)
		}
	}
}

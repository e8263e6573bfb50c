package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/server/lspext"
)

// pendingTail is the usual end of a long conversation: the model's last
// calls waiting for approval.
var pendingTail = func() string {
	text := "\n@Assistant:\nFive more steps.\n"
	results := "\n@You:\n"
	for i := 0; i < 5; i++ {
		text += fmt.Sprintf("\n**Tool Use:** `bash` (`toolu_tail%d`)\n\n```json\n{\"command\":\"go test ./pkg%d/...\",\"timeout\":null,\"label\":\"step %d\"}\n```\n", i, i, i)
		results += fmt.Sprintf("\n**Tool Result:** `toolu_tail%d`\n\n```flemma:tool status=pending\n```\n", i)
	}
	return text + results
}()

// openBig installs the generated 10 MB document as an open document of a
// fresh server and returns the snapshot requests see.
func openBig(b *testing.B) (*Server, *snapshot) {
	b.Helper()
	s := New(Options{NoCustomTools: true, StateDir: b.TempDir()})
	uri := "file:///bench/big.chat"
	d := s.sess.Open(uri, chatgen.Generate(10<<20, 1)+pendingTail, 1)
	doc, version := s.sess.Snapshot(d)
	return s, &snapshot{uri: uri, d: d, doc: doc, version: version, enc: chatdoc.UTF16}
}

func rangeParams(uri string, fromLine, toLine int) *json.RawMessage {
	raw := json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%q},"range":{"start":{"line":%d,"character":0},"end":{"line":%d,"character":0}},"context":{"diagnostics":[]}}`, uri, fromLine, toLine))
	return &raw
}

// BenchmarkInlayHintsVisibleRange10MB asks for the hints of one screen
// (80 lines) near the end of the 10 MB document.
func BenchmarkInlayHintsVisibleRange10MB(b *testing.B) {
	s, snap := openBig(b)
	last := snap.doc.Lines.LineCount()
	params := rangeParams(snap.uri, last-80, last)
	if hints, _ := s.handlers["textDocument/inlayHint"](s, context.Background(), params, snap); len(hints.([]lspext.InlayHint)) != 5 {
		b.Fatalf("want the 5 pending calls' hints, got %v", hints)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.handlers["textDocument/inlayHint"](s, context.Background(), params, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodeActionsAtPlaceholder10MB asks for the actions at the last
// placeholder (it also builds "Approve all N pending" over the document).
func BenchmarkCodeActionsAtPlaceholder10MB(b *testing.B) {
	s, snap := openBig(b)
	var last *chatdoc.ToolResult
	for _, r := range snap.doc.ToolResults() {
		if r.IsPlaceholder() {
			last = r
		}
	}
	if last == nil {
		b.Skip("the generated document has no placeholder")
	}
	line := snap.doc.Lines.Position(last.Span.Start, chatdoc.UTF16).Line
	params := rangeParams(snap.uri, line, line)
	// Diagnostics of the snapshot were computed when they were published.
	s.sess.Diagnostics(snap.d, snap.doc, true)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.handlers["textDocument/codeAction"](s, context.Background(), params, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiagnosticsAfterKeystroke10MB is what the debounced publish
// computes after one character typed (then deleted): parse, tool, file
// reference and cycle diagnostics of the new snapshot. "top" types after
// the second message, so every later message has moved; "end" in the last
// message.
func BenchmarkDiagnosticsAfterKeystroke10MB(b *testing.B) {
	for _, where := range []string{"top", "end"} {
		b.Run(where, func(b *testing.B) {
			s, snap := openBig(b)
			ds := snap.d
			doc := snap.doc
			at := doc.Message(2).Span.Start - 1
			if where == "end" {
				at = doc.Len()
			}
			s.sess.Diagnostics(ds, doc, true) // the verdicts are remembered, as after the first publish
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				if i%2 == 0 {
					doc = doc.Replace(chatdoc.Span{Start: at, End: at}, "x")
				} else {
					doc = doc.Replace(chatdoc.Span{Start: at, End: at + 1}, "")
				}
				b.StartTimer()
				s.sess.Diagnostics(ds, doc, true)
			}
		})
	}
}

// BenchmarkHover10MB hovers the last pending call of the 10 MB document
// (policy decision and trace included).
func BenchmarkHover10MB(b *testing.B) {
	s, snap := openBig(b)
	last := snap.doc.ToolUses()[len(snap.doc.ToolUses())-1]
	pos := snap.doc.Lines.Position(last.NameSpan().Start, chatdoc.UTF16)
	raw := json.RawMessage(fmt.Sprintf(`{"textDocument":{"uri":%q},"position":{"line":%d,"character":%d}}`, snap.uri, pos.Line, pos.Character))
	if h, err := s.handlers["textDocument/hover"](s, context.Background(), &raw, snap); err != nil || h == nil {
		b.Fatalf("no hover: %v", err)
	}
	for b.Loop() {
		if _, err := s.handlers["textDocument/hover"](s, context.Background(), &raw, snap); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodeLenses10MB lists the lenses of the 10 MB document (five
// pending placeholders at its end among 11,506 results).
func BenchmarkCodeLenses10MB(b *testing.B) {
	s, snap := openBig(b)
	if lenses, _ := s.codeLenses(context.Background(), noParams{}, snap); len(lenses) != 15 {
		b.Fatalf("want 3 lenses for each of the 5 pending calls, got %d", len(lenses))
	}
	for b.Loop() {
		if _, err := s.codeLenses(context.Background(), noParams{}, snap); err != nil {
			b.Fatal(err)
		}
	}
}

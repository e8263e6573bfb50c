package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/server/lspext"
	"github.com/chatls/chatls/server/surface"
	"github.com/chatls/chatls/tools/custom"
)

// testServer opens text as an open document of a fresh server (no client)
// and returns the snapshot requests see.
func testServer(t testing.TB, text string) (*Server, *snapshot) {
	t.Helper()
	s := New(Options{NoCustomTools: true, StateDir: t.TempDir()})
	doc := chatdoc.Parse(text)
	uri := "file:///ws/doc.chat"
	s.docs[uri] = newDocState(uri, doc, 1)
	return s, &snapshot{uri: uri, doc: doc, version: 1, enc: chatdoc.UTF16}
}

// hintLines asks for the hints of [from, to) (0-based lines, character 0)
// and renders them as "L<1-based line> label".
func hintLines(t *testing.T, s *Server, snap *snapshot, from, to int) []string {
	t.Helper()
	hints, err := s.handlers["textDocument/inlayHint"](s, context.Background(), rangeParams(snap.uri, from, to), snap)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hints.([]lspext.InlayHint) {
		out = append(out, fmt.Sprintf("L%d %s", h.Position.Line+1, h.Label))
	}
	return out
}

// threePending has pending placeholders whose fence openers are on lines 27,
// 33 and 39 (1-based), all in one You message.
var threePending = func() string {
	text := "@You:\ngo\n\n@Assistant:\n"
	results := "@You:\n"
	for i := 1; i <= 3; i++ {
		text += fmt.Sprintf("**Tool Use:** `calculator` (`c%d`)\n\n```json\n{\"expression\":\"%d + %d\"}\n```\n\n", i, i, i)
		results += fmt.Sprintf("\n**Tool Result:** `c%d`\n\n```flemma:tool status=pending\n```\n\n", i)
	}
	return text + results
}()

// Only hints positioned inside the requested range are returned, although
// the message holding them overlaps it.
func TestInlayHintsHonourTheRange(t *testing.T) {
	s, snap := testServer(t, threePending)
	all := hintLines(t, s, snap, 0, snap.doc.Lines.LineCount())
	want := []string{"L27 calculator: 1 + 1", "L33 calculator: 2 + 2", "L39 calculator: 3 + 3"}
	if !slices.Equal(all, want) {
		t.Fatalf("whole document: %q, want %q", all, want)
	}
	for _, c := range []struct {
		from, to int
		want     []string
	}{
		{32, 33, want[1:2]}, // line 33 alone, as a client asks for L33–33
		{26, 27, want[:1]},
		{27, 32, nil}, // between two hints
		{26, 26, nil}, // empty, before the hint at the end of line 27
		{32, 100, want[1:]},
	} {
		if got := hintLines(t, s, snap, c.from, c.to); !slices.Equal(got, c.want) {
			t.Errorf("range L%d-L%d: %q, want %q", c.from+1, c.to+1, got, c.want)
		}
	}
}

// slowPlugin configures, in s's tool set, a plugin that declares slowtool
// once release is called (it waits on a FIFO before answering init).
func slowPlugin(t *testing.T, s *Server) (release func()) {
	t.Helper()
	dir := t.TempDir()
	fifo, path := filepath.Join(dir, "release"), filepath.Join(dir, "slow-plugin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/bash\nread -r line\nread -r _ < " + fifo + "\n" +
		`echo '{"type":"init","tools":[{"name":"slowtool","description":"answers slowly","parameters":{"type":"object","properties":{"x":{"type":"string"}},"additionalProperties":false}}]}'` +
		"\nexec cat >/dev/null\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	s.toolSet.Reconcile(custom.Config{Plugins: []config.Plugin{{Name: "slow", Path: path}}, Timeout: time.Minute})
	t.Cleanup(func() { s.toolSet.Close() })
	return func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the plugin reads
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("go\n")
		f.Close()
	}
}

// While a tool source loads, only calls of tools not known yet wait: they
// say so in a hint (on the placeholder, or on the header while there is
// none) and a diagnostic; calls of built-ins show their previews and
// documents using only built-ins show nothing about waiting.
func TestWaitingForToolDefinitionsOnlyWhereNeeded(t *testing.T) {
	text := "@You:\ngo\n\n@Assistant:\n" +
		"**Tool Use:** `slowtool` (`s1`)\n\n```json\n{\"x\":\"a\"}\n```\n\n" + // L5
		"**Tool Use:** `calculator` (`c1`)\n\n```json\n{\"expression\":\"1 + 1\"}\n```\n\n" + // L11
		"**Tool Use:** `slowtool` (`s2`)\n\n```json\n{\"x\":\"b\"}\n```\n\n" + // L17
		"@You:\n\n**Tool Result:** `s2`\n\n```flemma:tool status=pending\n```\n" // opener L27
	s, snap := testServer(t, text)
	release := slowPlugin(t, s)
	ds := s.docs[snap.uri]
	waitingAt := func(doc *chatdoc.Document, ds *docState) []string {
		var out []string
		for _, d := range s.documentDiagnostics(ds, doc) {
			if d.Code == cycle.CodeWaitingTools || d.Code == surface.CodeUnknownTool {
				out = append(out, fmt.Sprintf("L%d %s %s", doc.Lines.LineOf(d.Span.Start)+1, d.Code, doc.Slice(d.Span.Start, d.Span.End)))
			}
		}
		return out
	}

	hints := hintLines(t, s, snap, 0, snap.doc.Lines.LineCount())
	if want := []string{"L5 " + cycle.MsgWaitingTools, "L27 " + cycle.MsgWaitingTools}; !slices.Equal(hints, want) {
		t.Errorf("hints while loading: %q, want %q", hints, want)
	}
	if got, want := waitingAt(snap.doc, ds), []string{"L5 waiting-for-tools slowtool", "L17 waiting-for-tools slowtool"}; !slices.Equal(got, want) {
		t.Errorf("diagnostics while loading: %q, want %q", got, want)
	}
	builtinsOnly := chatdoc.Parse("@You:\ngo\n\n@Assistant:\n**Tool Use:** `calculator` (`c1`)\n\n```json\n{\"expression\":\"1 + 1\"}\n```\n\n@You:\n")
	if got := waitingAt(builtinsOnly, newDocState("file:///ws/b.chat", builtinsOnly, 1)); got != nil {
		t.Errorf("a document using only built-ins waits for nothing, got %q", got)
	}

	release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.toolSet.WaitFor(ctx, "slowtool"); err != nil {
		t.Fatal(err)
	}
	hints = hintLines(t, s, snap, 0, snap.doc.Lines.LineCount())
	if want := []string{`L27 slowtool: x="b"`}; !slices.Equal(hints, want) {
		t.Errorf("hints once loaded: %q, want %q", hints, want)
	}
	if got := waitingAt(snap.doc, ds); got != nil {
		t.Errorf("diagnostics once loaded: %q, want none", got)
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

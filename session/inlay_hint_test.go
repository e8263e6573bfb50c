package session

import (
	"context"
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
	"github.com/chatls/chatls/surface"
	"github.com/chatls/chatls/tools/custom"
)

// hintLines are the hints of lines [from, to] (0-based, from character 0
// of from to character 0 of to, as a client asks for the visible lines),
// rendered as "L<1-based line> label".
func hintLines(t *testing.T, s *Session, ds *Doc, from, to int) []string {
	t.Helper()
	doc := s.Latest(ds)
	span := doc.Span(chatdoc.Range{Start: chatdoc.Position{Line: from}, End: chatdoc.Position{Line: to}}, chatdoc.UTF16)
	var out []string
	for _, h := range s.Hints(ds, doc, span) {
		out = append(out, fmt.Sprintf("L%d %s", doc.Lines.LineOf(h.At)+1, h.Label))
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
	ts := newTestSession(t, nil, "")
	ds, _ := ts.open("doc.chat", threePending)
	s := ts.s
	all := hintLines(t, s, ds, 0, s.Latest(ds).Lines.LineCount())
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
		if got := hintLines(t, s, ds, c.from, c.to); !slices.Equal(got, c.want) {
			t.Errorf("range L%d-L%d: %q, want %q", c.from+1, c.to+1, got, c.want)
		}
	}
}

// slowPlugin configures, in s's tool set, a plugin that declares slowtool
// once release is called (it waits on a FIFO before answering init).
func slowPlugin(t *testing.T, s *Session) (release func()) {
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
	ts := newTestSession(t, nil, "")
	s := ts.s
	release := slowPlugin(t, s)
	ds, _ := ts.open("doc.chat", text)
	snap := struct{ doc *chatdoc.Document }{s.Latest(ds)}
	waitingAt := func(doc *chatdoc.Document, ds *Doc) []string {
		var out []string
		for _, d := range s.Diagnostics(ds, doc, true) {
			if d.Code == cycle.CodeWaitingTools || d.Code == surface.CodeUnknownTool {
				out = append(out, fmt.Sprintf("L%d %s %s", doc.Lines.LineOf(d.Span.Start)+1, d.Code, doc.Slice(d.Span.Start, d.Span.End)))
			}
		}
		return out
	}

	hints := hintLines(t, s, ds, 0, snap.doc.Lines.LineCount())
	if want := []string{"L5 " + cycle.MsgWaitingTools, "L27 " + cycle.MsgWaitingTools}; !slices.Equal(hints, want) {
		t.Errorf("hints while loading: %q, want %q", hints, want)
	}
	if got, want := waitingAt(snap.doc, ds), []string{"L5 waiting-for-tools slowtool", "L17 waiting-for-tools slowtool"}; !slices.Equal(got, want) {
		t.Errorf("diagnostics while loading: %q, want %q", got, want)
	}
	builtinsOnly := chatdoc.Parse("@You:\ngo\n\n@Assistant:\n**Tool Use:** `calculator` (`c1`)\n\n```json\n{\"expression\":\"1 + 1\"}\n```\n\n@You:\n")
	b, _ := ts.open("b.chat", builtinsOnly.Text())
	if got := waitingAt(builtinsOnly, b); got != nil {
		t.Errorf("a document using only built-ins waits for nothing, got %q", got)
	}

	release()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.toolSet.WaitFor(ctx, "slowtool"); err != nil {
		t.Fatal(err)
	}
	hints = hintLines(t, s, ds, 0, snap.doc.Lines.LineCount())
	if want := []string{`L27 slowtool: x="b"`}; !slices.Equal(hints, want) {
		t.Errorf("hints once loaded: %q, want %q", hints, want)
	}
	if got := waitingAt(snap.doc, ds); got != nil {
		t.Errorf("diagnostics once loaded: %q, want none", got)
	}
}

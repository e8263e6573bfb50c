package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/contextwin"
)

// testOutput is a command's output of about size bytes, in numbered lines.
func testOutput(size int) string {
	var b strings.Builder
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "=== RUN   TestParse/case_%03d\n", i)
	}
	return b.String()
}

// bashTurn is a question, a bash call and its finished result, and the
// answer after it: three assistant-or-user message pairs' worth of a turn.
func bashTurn(question, id, command, output, answer string) string {
	return "@You:\n" + question + "\n\n@Assistant:\n**Tool Use:** `bash` (`" + id + "`)\n\n```json\n{\"command\":\"" + command + "\"}\n```\n\n" +
		"@You:\n**Tool Result:** `" + id + "`\n\n```\n" + output + "```\n\n@Assistant:\n" + answer + "\n\n"
}

// lastRequest is the editor's last applied edit.
func (e *fakeEditor) lastRequest(t *testing.T) EditRequest {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.requests) == 0 {
		t.Fatal("the editor applied no edit")
	}
	return e.requests[len(e.requests)-1]
}

// undo is the editor's undo of req, as the user's change: each edit's new
// text becomes the text it replaced again.
func (e *fakeEditor) undo(t *testing.T, uri string, req EditRequest) {
	t.Helper()
	sorted := slices.Clone(req.Edits)
	slices.SortStableFunc(sorted, func(a, b chatdoc.TextEdit) int { return a.Span.Start - b.Span.Start })
	var inverse []chatdoc.TextEdit
	shift := 0
	for _, te := range sorted {
		start := te.Span.Start + shift
		inverse = append(inverse, chatdoc.TextEdit{Span: chatdoc.Span{Start: start, End: start + len(te.NewText)}, NewText: req.Doc.Slice(te.Span.Start, te.Span.End)})
		shift += len(te.NewText) - te.Span.Len()
	}
	e.mu.Lock()
	buf := e.bufs[uri]
	enc := e.s.Encoding()
	var changes []chatdoc.Change
	for i := len(inverse) - 1; i >= 0; i-- { // later first: earlier positions stay valid
		te := inverse[i]
		r := chatdoc.Range{Start: buf.Lines.Position(te.Span.Start, enc), End: buf.Lines.Position(te.Span.End, enc)}
		changes = append(changes, chatdoc.Change{Range: &r, Text: te.NewText})
	}
	e.bufs[uri] = buf.Apply(changes, enc)
	e.versions[uri]++
	version := e.versions[uri]
	e.notifyLocked()
	e.mu.Unlock()
	e.s.Change(uri, changes, version)
}

// contextDiagnostics are the document's context warnings now.
func contextDiagnostics(ts *testSession, d *Doc) []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	for _, dg := range ts.s.Diagnostics(d, ts.s.Latest(d), true) {
		if dg.Code == CodeContext {
			out = append(out, dg)
		}
	}
	return out
}

// offerTitles are the offers' titles, the preferred one marked with a *.
func offerTitles(offers []ContextOffer) []string {
	var out []string
	for _, o := range offers {
		if o.Preferred {
			out = append(out, "*"+o.Title)
		} else {
			out = append(out, o.Title)
		}
	}
	return out
}

// The warning at context.warnAt offers "Trim old tool outputs" first when
// trimming is enough; applied, it is one edit (the outputs' first lines
// and the trimmed line) after the archive is written, the warning goes,
// and the editor's undo brings the document, and the warning, back.
func TestTrimOfferedOnTheWarning(t *testing.T) {
	cfg := scriptConfig(t, "",
		map[string]any{"text": "unused"}, map[string]any{"text": "unused"}, map[string]any{"text": "unused"}, map[string]any{"text": "unused"},
		map[string]any{"text": "Both fixed.", "usage": map[string]any{"InputTokens": 1700, "OutputTokens": 20}})
	cfg += "[context]\nkeepRecent = 0.1\n[providers.replay.models.script]\ncontextWindow = 2000\n"
	ts := newTestSession(t, nil, cfg)
	output := testOutput(3000)
	// Two turns after the output are more than the newest 200 tokens
	// (context.keepRecent's 10% of the window) that trimming leaves alone.
	later := ""
	for _, q := range []string{"which ones?", "why?"} {
		later += "@You:\n" + q + "\n\n@Assistant:\n" + strings.Repeat("TestParse/case_007 and case_019 fail. ", 16) + "\n\n"
	}
	start := bashTurn("run the tests", "t1", "go test ./...", output, "Two tests fail.") + later + "@You:\nfix them\n"
	d, uri := ts.open("tests.chat", start)
	if err := ts.s.Send(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ts.ed.waitFor(t, "the answer and the warning", func() bool {
		return strings.Contains(ts.ed.text(uri), "Both fixed.") && !ts.s.Status(d).Sending && len(contextDiagnostics(ts, d)) == 1
	})
	before := ts.ed.text(uri)
	doc := ts.s.Latest(d)
	warning := contextDiagnostics(ts, d)[0]
	if doc.Slice(warning.Span.Start, warning.Span.End) != "@You:" || warning.Span != lastYouMarker(doc) ||
		!strings.HasPrefix(warning.Message, "The conversation uses about 86% of the model's 2k-token context window") {
		t.Fatalf("warning %+v", warning)
	}
	// The status line says so too, after the last answer's share.
	if n := ts.s.Notice(d); n.Context == nil || n.Context.Level != "warn" ||
		!strings.Contains(n.Text, "context 86% of 2k: compact the conversation") || !strings.Contains(n.Text, "· 85% of 2k ·") {
		t.Errorf("status %q, context %+v", n.Text, n.Context)
	}
	if got := ts.s.ContextOffers(d, doc, chatdoc.Span{Start: 0, End: 1}); len(got) != 0 {
		t.Errorf("offers away from the warning: %v", offerTitles(got))
	}
	offers := ts.s.ContextOffers(d, doc, chatdoc.Span{Start: warning.Span.Start + 2, End: warning.Span.Start + 2})
	if got, want := offerTitles(offers), []string{"*Trim old tool outputs", "Compact the conversation"}; !slices.Equal(got, want) {
		t.Fatalf("offers %q, want %q", got, want)
	}
	if offers[0].Command != CommandTrim || offers[1].Command != CommandCompact || offers[0].Diagnostic != warning {
		t.Errorf("offers %+v", offers)
	}

	applied := ts.ed.applied
	done, err := ts.s.Trim(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(ts.ws, "tests.archive-1.chat")
	want, err := contextwin.Trim(doc, contextwin.KeepTokens(2000, 0.1), archive)
	if err != nil {
		t.Fatal(err)
	}
	if done.Archive != archive || done.Trimmed != 1 || done.Saved != want.Saved {
		t.Errorf("trimmed %+v, want 1 output into %s, %d bytes", done, archive, want.Saved)
	}
	if n := ts.ed.applied - applied; n != 1 {
		t.Errorf("%d edits applied, want one", n)
	}
	after := ts.ed.text(uri)
	if after != chatdoc.ApplyEdits(before, want.Edits) {
		t.Fatalf("document after the trim:\n%s", after)
	}
	kept := strings.Join(strings.SplitAfter(output, "\n")[:10], "")
	if !strings.Contains(after, "```\n"+kept+"[trimmed; full output in tests.archive-1.chat]\n```\n") {
		t.Errorf("the trimmed output is not its first 10 lines and the trimmed line:\n%s", after)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want.Archive) || !strings.Contains(string(data), "```\n"+output+"```\n") {
		t.Errorf("archive:\n%s", data)
	}
	// The next request no longer fills the window: the warning is gone.
	ts.ed.waitFor(t, "the warning to go", func() bool { return len(contextDiagnostics(ts, d)) == 0 })
	if n := ts.s.Notice(d); n.Context != nil || strings.Contains(n.Text, "compact the conversation") {
		t.Errorf("status after the trim %q", n.Text)
	}

	// Undo: the text as it was, and the warning with it.
	ts.ed.undo(t, uri, ts.ed.lastRequest(t))
	ts.ed.waitFor(t, "the warning back after the undo", func() bool { return len(contextDiagnostics(ts, d)) == 1 })
	if got := ts.ed.text(uri); got != before {
		t.Errorf("after the undo:\n%s\nwant:\n%s", got, before)
	}
	if got := ts.s.Latest(d).Text(); got != before {
		t.Errorf("the session's view after the undo differs from the editor's")
	}
	if _, err := os.Stat(archive); err != nil {
		t.Errorf("the undo lost the archive: %v", err)
	}
}

// A send refused past the window says why on the `@You:` marker, once,
// with "Compact the conversation" first (trimming is not enough);
// compacting is one edit: the compacted line and the summary, with the
// moved messages in the archive byte for byte, and undo restores the text.
// The autopilot does not send the compacted document by itself.
func TestCompactOfferedOnTheRefusal(t *testing.T) {
	const summary = "Goal: fix the parser. Decided: strconv."
	cfg := scriptConfig(t, "", map[string]any{"text": summary, "usage": map[string]any{"InputTokens": 900, "OutputTokens": 20}})
	cfg += "[providers.replay.models.script]\ncontextWindow = 1000\n"
	ts := newTestSession(t, map[string]any{"autopilot": true}, cfg)
	var turns []string
	for i, q := range []string{"why does the parser fail?", "and the lexer?", "now the numbers", "and the errors?"} {
		turns = append(turns, bashTurn(q, "t"+strconv.Itoa(i+1), "go test ./parser", testOutput(2200), strings.Repeat("It is fine now. ", 20)))
	}
	start := strings.Join(turns, "") + "@You:\nwhat is left?\n"
	d, uri := ts.open("parser.chat", start)
	err := ts.s.Send(t.Context(), d)
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reason, "of the 1k-token context window: compact the conversation first") {
		t.Fatalf("send: %v", err)
	}
	ts.ed.waitFor(t, "the refusal on the marker", func() bool { return len(contextDiagnostics(ts, d)) == 1 })
	doc := ts.s.Latest(d)
	diags := ts.s.Diagnostics(d, doc, true)
	marker := lastYouMarker(doc)
	var onMarker []chatdoc.Diagnostic
	for _, dg := range diags {
		if dg.Span == marker {
			onMarker = append(onMarker, dg)
		}
	}
	if len(onMarker) != 1 || onMarker[0].Code != CodeContext || onMarker[0].Message != refused.Reason {
		t.Fatalf("diagnostics on the marker %+v, want the refusal once", onMarker)
	}
	offers := ts.s.ContextOffers(d, doc, marker)
	if got, want := offerTitles(offers), []string{"*Compact the conversation", "Trim old tool outputs"}; !slices.Equal(got, want) {
		t.Fatalf("offers %q, want %q", got, want)
	}

	applied := ts.ed.applied
	done, err := ts.s.Compact(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	if n := ts.ed.applied - applied; n != 1 {
		t.Errorf("%d edits applied, want one", n)
	}
	after := ts.ed.text(uri)
	moved := strings.Join(turns[:done.Moved/4], "")
	want := "@You:\n<!-- chatls:compacted " + strconv.Itoa(done.Moved) + " messages into parser.archive-1.chat -->\n\n" + summary + "\n\n" + strings.TrimPrefix(start, moved)
	if done.Moved%4 != 0 || done.Moved == 0 || after != want {
		t.Fatalf("moved %d; document after compaction:\n%s\nwant:\n%s", done.Moved, after, want)
	}
	if data, err := os.ReadFile(done.Archive); err != nil || string(data) != moved {
		t.Errorf("archive %s (%v):\n%s\nwant the moved text:\n%s", done.Archive, err, data, moved)
	}
	if st := ts.s.Status(d); st.Sending || st.Chain == nil || st.Chain.Armed {
		t.Errorf("status after compaction %+v: the autopilot must not send the compacted document", st)
	}
	ts.ed.undo(t, uri, ts.ed.lastRequest(t))
	ts.ed.waitText(t, uri, "why does the parser fail?")
	if got := ts.ed.text(uri); got != start {
		t.Errorf("after the undo:\n%s", got)
	}
}

// send.maxCost counts the summary request: a chain that spent $1 on its
// first answer and $1 on a summary stops at a $1.50 limit instead of
// sending again once the approved call's result is written.
func TestMaxCostCountsTheSummary(t *testing.T) {
	// The script answers by the count of answers in the request: 0 is the
	// summary's, 4 the first send's, 2 the send after the compaction (the
	// last old turn and the answer with the call).
	cfg := scriptConfig(t, "[send]\nmaxCost = 1.5\n[context]\nkeepRecent = 0.005\n",
		map[string]any{"text": "Goal: add numbers.", "usage": map[string]any{"InputTokens": 1000}},
		map[string]any{"text": "unused"},
		map[string]any{"text": "It is 42 (this request must not be sent)."},
		map[string]any{"text": "unused"},
		map[string]any{"text": "Let me add.", "usage": map[string]any{"InputTokens": 1000},
			"toolUses": []any{map[string]any{"id": "k1", "name": "calculator", "input": map[string]any{"expression": "2 * 21"}}}})
	cfg += "[providers.replay.models.script]\ncontextWindow = 100000\nprice = { input = 1000, output = 0 }\n"
	ts := newTestSession(t, map[string]any{"autopilot": true}, cfg)
	var turns string
	for i := range 4 {
		turns += "@You:\nquestion " + strconv.Itoa(i) + " " + strings.Repeat("words ", 200) + "\n\n@Assistant:\nanswer " + strings.Repeat("more words ", 200) + "\n\n"
	}
	d, uri := ts.open("cost.chat", turns+"@You:\nwhat is 2*21?\n")
	if err := ts.s.Send(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	ts.ed.waitFor(t, "the pending call", func() bool {
		return strings.Contains(ts.ed.text(uri), "status=pending") && !ts.s.Status(d).Sending
	})
	if done, err := ts.s.Compact(t.Context(), d); err != nil || done.Moved != 6 {
		t.Fatalf("compacted %+v: %v, want 6 messages moved", done, err)
	}
	if !ts.s.SetStatus(d, "k1", chatdoc.StatusApproved) {
		t.Fatal("cannot approve k1")
	}
	ts.ed.waitFor(t, "the cost guard", func() bool {
		return strings.Contains(ts.s.Status(d).Problem, "this chain cost $2.00, over the $1.50 limit")
	})
	if text := ts.ed.text(uri); !strings.Contains(text, "```\n42\n```") || strings.Contains(text, "must not be sent") {
		t.Errorf("document:\n%s", text)
	}
}

// A compaction with no chain yet starts none the autopilot would go on
// with: the compacted document waits for the user to read the summary and
// send.
func TestCompactLeavesTheSendToTheUser(t *testing.T) {
	cfg := scriptConfig(t, "", map[string]any{"text": "Goal: colours.", "delayMs": 50})
	cfg += "[providers.replay.models.script]\ncontextWindow = 400\n"
	ts := newTestSession(t, map[string]any{"autopilot": true}, cfg)
	text := strings.Repeat("@You:\n"+strings.Repeat("a question ", 30)+"\n\n@Assistant:\n"+strings.Repeat("an answer ", 30)+"\n\n", 4) + "@You:\nnext?\n"
	d, uri := ts.open("colours.chat", text)
	if _, err := ts.s.Compact(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	if st := ts.s.Status(d); st.Sending || st.Chain == nil || st.Chain.Armed {
		t.Errorf("status after compaction %+v, chain %+v: nothing may send by itself", st, st.Chain)
	}
	if got := ts.ed.text(uri); !strings.HasSuffix(got, "@You:\nnext?\n") {
		t.Errorf("document after compaction:\n%s", got)
	}
}

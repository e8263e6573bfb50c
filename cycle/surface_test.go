package cycle

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// What is left to do, as chatls.advance reports it.
func TestCount(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall, writeCall, {"t_new", "ls", `{"path":"."}`}},
		placeholder("t_read", chatdoc.StatusApproved, ""), placeholder("t_bash", chatdoc.StatusPending, ""),
		placeholder("t_write", chatdoc.StatusApproved, ""), placeholder("t_orphan", chatdoc.StatusPending, "")))
	l := NewLedger(doc)
	l.Take("t_read", t0)
	l.Writing("t_write")
	got := Count(doc, l)
	if got.Pending != 1 || got.Running != 2 || got.Ready {
		t.Errorf("got %+v: want 1 pending (bash; the orphan is diagnosed), 2 running (one writing), not ready", got)
	}
	if r := got.WithPhase(false, false); r.Phase != PhaseWait {
		t.Errorf("phase %q, want wait", r.Phase)
	}
	done := chatdoc.Parse(conversation([]call{readCall}, "**Tool Result:** `t_read`\n\n```\nok\n```\n"))
	if r := Count(done, NewLedger(done)).WithPhase(false, false); !r.Ready || r.Phase != PhaseSend || r.Message != "ready to send" {
		t.Errorf("finished document: %+v", r)
	}
	dup := chatdoc.Parse(conversation([]call{readCall, {"t_read", "read", `{"path":"b"}`}}, ""))
	if r := Count(dup, NewLedger(dup)); r.Ready || !strings.Contains(r.Message, "`t_read`") {
		t.Errorf("duplicated IDs: %+v", r)
	}
	sum := Sum([]Report{{Phase: PhaseSend, Ready: true}, {Phase: PhaseExecute, Running: 2}, {Phase: PhaseWait, Pending: 1}})
	if sum.Phase != PhaseExecute || sum.Running != 2 || sum.Pending != 1 || sum.Ready {
		t.Errorf("sum %+v", sum)
	}
}

// Each block shows its state: the session diagnostics of SPEC §3.
func TestDiagnostics(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall, writeCall, {"t_old", "bash", `{"command":"x","timeout":null}`}, {"t_ran", "bash", `{"command":"y","timeout":null}`}, {"t_none", "ls", `{"path":"."}`}},
		placeholder("t_read", chatdoc.StatusApproved, ""), placeholder("t_bash", chatdoc.StatusPending, ""),
		placeholder("t_write", chatdoc.StatusApproved, ""), placeholder("t_old", chatdoc.StatusApproved, ""),
		placeholder("t_ran", chatdoc.StatusPending, "")))
	l := NewLedger(doc)
	l.Take("t_write", t0)
	l.Started("t_write", "write", t0, false)
	journal := map[string]JournalEntry{"t_ran": {State: Finished, Known: true}}
	preview := func(u *chatdoc.ToolUse) string { return "preview of " + u.ID }
	var got []string
	for _, d := range new(PartCache).Diagnostics(doc, l, defaults.facts(journal), preview, t0.Add(3*time.Second), nil) {
		got = append(got, d.ToolID+" "+d.Code+": "+d.Message)
	}
	sort.Strings(got)
	want := []string{
		"t_bash " + CodePending + ": approval pending: preview of t_bash",
		"t_none " + CodeUnanswered + ": tool use without a result: run the next step (chatls.advance) to ask about it",
		"t_old " + CodeApprovedOld + ": " + MsgApprovedBefore,
		"t_ran " + CodeAlreadyRan + ": this tool already ran; run the next step (chatls.advance) to write its result",
		"t_write " + CodeRunning + ": running write (3s)",
	}
	if !equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// An approved call the policy approves needs no warning (t_read above);
	// a revoked one says why it waits.
	doc2 := chatdoc.Parse(conversation([]call{bashCall}, placeholder("t_bash", chatdoc.StatusPending, "")))
	l2 := NewLedger(doc2)
	doc2, _ = edit(t, l2, doc2, "status=pending", "status=approved", true)
	doc2, _ = edit(t, l2, doc2, "make test", "make all", true)
	if d := new(PartCache).Diagnostics(doc2, l2, defaults.facts(nil), preview, t0, nil); len(d) != 1 || d[0].Code != CodeRevoked {
		t.Errorf("revoked: %+v", d)
	}
	// With the client's key names, the messages say what to press.
	keys := Keys{KeyAdvance: "<C-]>"}
	for _, d := range new(PartCache).Diagnostics(doc, l, defaults.facts(journal), preview, t0, keys) {
		if (d.Code == CodeUnanswered || d.Code == CodeAlreadyRan) && !strings.Contains(d.Message, "press <C-]> (next step)") {
			t.Errorf("%s: %q does not name the key", d.Code, d.Message)
		}
	}
}

// The actions offered at each kind of block.
func TestActionsFor(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall, writeCall, {"t_old", "bash", `{"command":"x","timeout":null}`}, {"t_none", "ls", `{"path":"."}`}, {"t_filled", "bash", `{"command":"z","timeout":null}`}, {"t_den", "bash", `{"command":"q","timeout":null}`}},
		placeholder("t_read", chatdoc.StatusApproved, ""), placeholder("t_bash", chatdoc.StatusPending, ""),
		placeholder("t_write", chatdoc.StatusApproved, ""), placeholder("t_old", chatdoc.StatusApproved, ""),
		placeholder("t_filled", chatdoc.StatusPending, "mine"), placeholder("t_den", chatdoc.StatusDenied, "")))
	l := NewLedger(doc)
	l.Take("t_write", t0)
	names := map[Action]string{ActCancel: "cancel", ActInsert: "insert", ActApprove: "approve", ActRunNow: "run", ActAskAgain: "ask-again", ActReject: "reject", ActAlwaysAllow: "always",
		ActApproveOutside: "approve-outside", ActApproveOutsideNetwork: "approve-outside-network"}
	want := map[string]string{
		"t_read":   "run reject always",
		"t_bash":   "approve approve-outside approve-outside-network reject always",
		"t_write":  "cancel",
		"t_old":    "ask-again reject always",
		"t_none":   "insert",
		"t_filled": "reject always",
		"t_den":    "",
	}
	for id, w := range want {
		var got []string
		for _, a := range ActionsFor(doc, l, doc.ToolResult(id), doc.ToolUse(id), defaults.facts(nil)) {
			got = append(got, names[a])
		}
		if g := strings.Join(got, " "); g != w {
			t.Errorf("%s: %q, want %q", id, g, w)
		}
	}
	if open := OpenPending(doc); len(open) != 1 || open[0].ID != "t_bash" {
		t.Errorf("open pending: %v", open)
	}
}

// A use counts as unanswered exactly when no result anywhere has its ID:
// results in order right after it, out of order, far later, in the next
// part of a long document, missing, or for an input that did not parse.
func TestDiagnosticsUnansweredInEveryLayout(t *testing.T) {
	// Shifting the turns by up to five messages puts each kind of message at
	// the start and the end of a part (chatdoc.EachPart).
	for shift := range 6 {
		checkUnanswered(t, shift)
	}
}

func checkUnanswered(t *testing.T, shift int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(strings.Repeat("@You:\nhello\n\n", shift))
	for i := range 400 {
		a, c := fmt.Sprintf("a%d", i), fmt.Sprintf("c%d", i)
		fmt.Fprintf(&b, "@You:\nturn %d\n\n@Assistant:\n", i)
		for _, id := range []string{a, c} {
			input := `{"path":"x"}`
			if i%50 == 9 && id == c {
				input = `{"path":` // invalid: never reported as unanswered
			}
			fmt.Fprintf(&b, "**Tool Use:** `read` (`%s`)\n\n```json\n%s\n```\n\n", id, input)
		}
		var results []string
		switch i % 5 {
		case 0: // in order
			results = []string{a, c}
		case 1: // swapped
			results = []string{c, a}
		case 2: // only the second; the first is answered in the next turn
			results = []string{c}
		case 3:
			results = []string{a, c, fmt.Sprintf("a%d", i-1)}
		case 4: // results, but for calls that do not exist
			results = []string{fmt.Sprintf("z%d", i), fmt.Sprintf("y%d", i)}
		}
		if i%5 == 1 && i >= 4 {
			results = append(results, fmt.Sprintf("a%d", i-4))
		}
		if len(results) > 0 {
			b.WriteString("@You:\n")
			for _, id := range results {
				fmt.Fprintf(&b, "**Tool Result:** `%s`\n\n```\nok\n```\n\n", id)
			}
		}
	}
	doc := chatdoc.Parse(b.String())
	var got []string
	for _, d := range new(PartCache).Diagnostics(doc, NewLedger(doc), defaults.facts(nil), func(*chatdoc.ToolUse) string { return "" }, t0, nil) {
		if d.Code == CodeUnanswered {
			got = append(got, d.ToolID)
			if u := doc.ToolUse(d.ToolID); u == nil || d.Span != u.HeaderSpan {
				t.Errorf("%s: the finding is not at its use's header", d.ToolID)
			}
		}
	}
	var reference []string // every valid use without a result, the plain way
	for _, u := range doc.ToolUses() {
		if u.Valid() && doc.ToolResult(u.ID) == nil {
			reference = append(reference, u.ID)
		}
	}
	sort.Strings(got)
	sort.Strings(reference)
	if !equal(got, reference) || len(got) < 100 {
		t.Fatalf("shift %d: unanswered: got %d %v\nreference %d %v", shift, len(got), got, len(reference), reference)
	}
}

// Through random edits — status words, IDs, whole blocks typed or deleted
// — the cache gives exactly what a fresh walk gives, and an edit near the
// top marks only the parts it replaced again.
func TestDiagnosticsCacheEqualsFreshWalk(t *testing.T) {
	var b strings.Builder
	for i := range 600 {
		id := fmt.Sprintf("u%d", i)
		if i%50 == 7 {
			id = fmt.Sprintf("u%d", i-2) // a duplicated ID: neither unanswered nor pending
		}
		fmt.Fprintf(&b, "@You:\nturn %d\n\n@Assistant:\n**Tool Use:** `bash` (`%s`)\n\n```json\n{\"command\":\"make t%d\",\"timeout\":null}\n```\n\n", i, id, i)
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "@You:\n**Tool Result:** `%s`\n\n```\nok\n```\n\n", id)
		case 1:
			b.WriteString("@You:\n" + placeholder(id, chatdoc.StatusPending, ""))
			if i%20 == 1 { // a second result for the ID: never pending
				b.WriteString(placeholder(id, chatdoc.StatusPending, ""))
			}
		case 2:
			b.WriteString("@You:\n" + placeholder(id, chatdoc.StatusApproved, ""))
		}
	}
	doc := chatdoc.Parse(b.String())
	l := NewLedger(doc)
	preview := func(u *chatdoc.ToolUse) string { return "preview of " + u.ID }
	var cache PartCache
	check := func(step string) {
		t.Helper()
		got := cache.Diagnostics(doc, l, defaults.facts(nil), preview, t0, nil)
		want := new(PartCache).Diagnostics(doc, l, defaults.facts(nil), preview, t0, nil) // computed afresh
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the cache gives %d diagnostics, a fresh walk %d (or they differ)", step, len(got), len(want))
		}
		if len(want) < 100 {
			t.Fatalf("%s: %d diagnostics; the document should have hundreds", step, len(want))
		}
		if got, want := cache.Count(doc, l), countByLists(doc, l); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the cache counts %+v, the placed lists %+v", step, got, want)
		}
	}
	check("first")
	rng := rand.New(rand.NewPCG(5, 6))
	for step := range 80 {
		text := doc.Text()
		at := rng.IntN(len(text))
		var from, to int
		var ins string
		switch step % 4 {
		case 0: // a status word
			i := strings.Index(text[at:], "status=")
			if i < 0 {
				continue
			}
			from = at + i + len("status=")
			to, ins = from+len("pending"), []string{"approved", "denied", "pending"}[rng.IntN(3)]
			if strings.HasPrefix(text[from:], "approved") {
				to = from + len("approved")
			}
		case 1: // an ID, breaking or making a pair
			i := strings.Index(text[at:], "`u")
			if i < 0 {
				continue
			}
			from, to, ins = at+i+2, at+i+2, "9"
		case 2: // across blocks
			from, to = at, min(len(text), at+rng.IntN(500))
		default: // prose near the top
			from, to, ins = 20, 20, "x"
		}
		doc = doc.Replace(chatdoc.Span{Start: from, End: to}, ins)
		before := cache.parts
		check(fmt.Sprintf("edit %d", step))
		if step%4 == 3 {
			reused := 0 // parts whose marks are the very ones from before
			for key, marks := range cache.parts {
				if old, ok := before[key]; ok && len(marks.placeholders) > 0 &&
					reflect.ValueOf(old.placeholders).Pointer() == reflect.ValueOf(marks.placeholders).Pointer() {
					reused++
				}
			}
			if len(cache.parts) < 10 || reused < len(cache.parts)-2 {
				t.Fatalf("a keystroke near the top kept %d of %d parts' marks", reused, len(cache.parts))
			}
		}
	}
}

// countByLists is what Count reports, counted the plain way: over the
// placed lists, with every ID looked up.
func countByLists(doc *chatdoc.Document, l *Ledger) Report {
	dups := DuplicateIDs(doc)
	r := Report{Running: l.Active()}
	var last []*chatdoc.ToolUse // the last Assistant message's: earlier ones are history
	for _, m := range doc.Messages() {
		if m.Role == "Assistant" {
			last = m.ToolUses
		}
	}
	for _, u := range last {
		if !dups[u.ID] && doc.ToolResult(u.ID) == nil && u.Valid() {
			r.Unanswered++
		}
	}
	for _, res := range doc.ToolResults() {
		if res.IsPlaceholder() && doc.ToolResult(res.ID) == res && doc.ToolUse(res.ID) != nil && !dups[res.ID] && !l.Busy(res.ID) {
			r.Pending++
		}
	}
	plain := Count(doc, l) // the rest of the report (ready, message) from the same counts
	plain.Unanswered, plain.Pending = r.Unanswered, r.Pending
	plain.Ready = r.Unanswered == 0 && r.Pending == 0 && plain.Running == 0 && len(dups) == 0
	return plain
}

package cycle

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

var (
	readCall  = call{"t_read", "read", `{"path":"a.txt","offset":null,"limit":null}`}
	bashCall  = call{"t_bash", "bash", `{"command":"make test","timeout":null}`}
	writeCall = call{"t_write", "write", `{"path":"out.txt","content":"x"}`}
	rmCall    = call{"t_rm", "bash", `{"command":"rm -rf /","timeout":null}`}
	defaults  = policy{"read": approval.Approve, "write": approval.Approve}
)

// SPEC §2 phase 1: which tool uses get which placeholder, and when.
func TestCategorize(t *testing.T) {
	three := []call{readCall, bashCall, writeCall}
	cases := []struct {
		name string
		// open is the document when it was opened; arrived, when set, is
		// appended after opening (a response streamed or pasted in).
		open, arrived string
		mode          Mode
		policy        policy
		want          string
	}{
		{name: "calls already in the file wait for the user under autopilot",
			open: conversation(three, ""), mode: Mode{Autopilot: true}, policy: defaults, want: ""},
		{name: "chatls.advance categorizes them by the policy",
			open: conversation(three, ""), mode: Mode{Force: true, Autopilot: true}, policy: defaults,
			want: "t_bash=pending t_read=approved t_write=approved"},
		{name: "a deny gives denied",
			open: conversation([]call{rmCall}, ""), mode: Mode{Force: true}, policy: policy{"bash": approval.Deny},
			want: "t_rm=denied"},
		{name: "autopilot takes calls that arrived once their message is complete",
			open: "@You:\nplease\n\n", arrived: conversation(three, "")[len("@You:\nplease\n\n"):],
			mode: Mode{Autopilot: true}, policy: defaults, want: "t_bash=pending t_read=approved t_write=approved"},
		{name: "not before a later role marker ends the message",
			open: "@You:\nplease\n\n", arrived: conversation(three)[len("@You:\nplease\n\n"):],
			mode: Mode{Autopilot: true}, policy: defaults, want: ""},
		{name: "not while a tool-use fence is open",
			open: "@You:\nplease\n\n", arrived: "@Assistant:\n**Tool Use:** `read` (`t_read`)\n\n```json\n{\"path\":\"a\"",
			mode: Mode{Autopilot: true}, policy: defaults, want: ""},
		{name: "autopilot off: nothing without chatls.advance",
			open: "@You:\nplease\n\n", arrived: conversation(three, "")[len("@You:\nplease\n\n"):],
			mode: Mode{}, policy: defaults, want: ""},
		{name: "an aborted message gives aborted, whatever the policy",
			open: "@You:\nplease\n\n@Assistant:\n**Tool Use:** `read` (`t_read`)\n\n```json\n{\"path\":\"a\"}\n```\n\n<!-- flemma:aborted: stopped -->\n\n@You:\n",
			mode: Mode{Force: true}, policy: defaults, want: "t_read=aborted"},
		{name: "invalid input gets no placeholder",
			open: conversation([]call{{"t_bad", "read", `{"path":`}, readCall}, ""), mode: Mode{Force: true}, policy: defaults,
			want: "t_read=approved"},
		{name: "the first use of a shared ID is the call (the later one gets its error, TestBrokenCallsAnsweredAtOnce)",
			open: conversation([]call{readCall, {"t_read", "bash", `{"command":"ls","timeout":null}`}, writeCall}, ""),
			mode: Mode{Force: true}, policy: defaults, want: "t_read=approved t_write=approved"},
		{name: "answered calls are left alone",
			open: conversation([]call{readCall, bashCall}, "**Tool Result:** `t_read`\n\n```\nhello\n```\n"),
			mode: Mode{Force: true}, policy: defaults, want: "t_bash=pending"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := chatdoc.Parse(c.open)
			l := NewLedger(doc)
			if c.arrived != "" {
				var wake bool
				doc, wake = appendText(t, l, doc, c.arrived, c.mode.Autopilot)
				if wantWake := c.want != "" && !c.mode.Force; wantWake && !wake {
					t.Errorf("the arriving calls did not wake the cycle")
				}
			}
			st, _, _ := Categorize(doc, l, c.mode, c.policy.facts(nil))
			if got := statuses(st); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// appendText appends text at the end of doc as a client edit.
func appendText(t *testing.T, l *Ledger, doc *chatdoc.Document, text string, autopilot bool) (*chatdoc.Document, bool) {
	t.Helper()
	end := doc.Len()
	next := doc.Replace(chatdoc.Span{Start: end, End: end}, text)
	return next, l.Observe(doc, next, chatdoc.Span{Start: end, End: end + len(text)}, autopilot)
}

// Placeholders go into the You message after the Assistant message, in
// call order, and the ledger issues the pending ones for their input.
func TestPlaceholdersAreInsertedOnceInCallOrder(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall, writeCall}))
	l := NewLedger(doc)
	st, _, _ := Categorize(doc, l, Mode{Force: true}, defaults.facts(nil))
	l.Placed(doc, st)
	edits, err := PlaceholderEdits(doc, st, nil, nil, chatdoc.DialectFence)
	next := apply(t, doc, edits, err)
	var order []string
	for _, r := range next.ToolResults() {
		order = append(order, r.ID+"="+string(r.Status))
	}
	if got, want := order, []string{"t_read=approved", "t_bash=pending", "t_write=approved"}; !equal(got, want) {
		t.Fatalf("placeholders %v, want %v\n%s", got, want, next.Text())
	}
	if again, _ := PlaceholderEdits(next, st, nil, nil, chatdoc.DialectFence); len(again) != 0 {
		t.Fatalf("the builder is not idempotent: %v", again)
	}
	if _, ok := l.issued["t_bash"]; !ok {
		t.Fatal("the pending placeholder was not issued")
	}
	if _, ok := l.issued["t_read"]; ok {
		t.Fatal("an approved placeholder counts as issued for approval")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A call whose input the schema rejects gets its error result at once, in
// call order among the placeholders, without the policy being asked.
func TestInvalidInputGetsItsErrorAtOnce(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall, writeCall}))
	l := NewLedger(doc)
	facts := defaults.facts(nil)
	decide := facts.Decide
	facts.Decide = func(u *chatdoc.ToolUse) approval.Verdict {
		if u.ID == "t_bash" {
			t.Errorf("the policy was asked about an invalid call")
		}
		return decide(u)
	}
	facts.Invalid = func(u *chatdoc.ToolUse) string {
		if u.ID == "t_bash" {
			return "Invalid input for bash:\n- command: expected string"
		}
		return ""
	}
	st, invalid, _ := Categorize(doc, l, Mode{Force: true}, facts)
	if _, ok := st["t_bash"]; ok || invalid["t_bash"] == "" {
		t.Fatalf("statuses %v invalid %v", st, invalid)
	}
	edits, err := PlaceholderEdits(doc, st, invalid, nil, chatdoc.DialectFence)
	next := apply(t, doc, edits, err)
	var order []string
	for _, r := range next.ToolResults() {
		order = append(order, r.ID+"="+string(r.Status))
	}
	if got, want := order, []string{"t_read=approved", "t_bash=error", "t_write=approved"}; !equal(got, want) {
		t.Fatalf("results %v, want %v\n%s", got, want, next.Text())
	}
	if !strings.Contains(next.Text(), "**Tool Result:** `t_bash` (error)\n\n```\nInvalid input for bash:\n- command: expected string\n```\n") {
		t.Fatalf("%s", next.Text())
	}
	if again, _ := PlaceholderEdits(next, st, invalid, nil, chatdoc.DialectFence); len(again) != 0 {
		t.Fatalf("the builder is not idempotent: %v", again)
	}
}

package cycle

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
)

// The approval scenarios of SPEC §2 and its security invariants, each on
// the pure cycle: open a document, make the user's (or a model's) edits,
// then plan a pass.
func TestResolveScenarios(t *testing.T) {
	pending := func(id string) string { return placeholder(id, chatdoc.StatusPending, "") }
	approved := func(id string) string { return placeholder(id, chatdoc.StatusApproved, "") }
	approve := func(id string) [2]string {
		return [2]string{"`" + id + "`\n\n```flemma:tool status=pending", "`" + id + "`\n\n```flemma:tool status=approved"}
	}
	cases := []struct {
		name   string
		open   string
		edits  [][2]string // old → new, in order, as client edits after open
		append string      // text appended after open (a model's output)
		mode   Mode
		policy policy
		// What the pass plans: runs, results, resets; and whether the
		// last edit woke the cycle.
		run, results, resets string
		wake                 bool
	}{
		{name: "opening runs nothing, even an approved placeholder (autopilot)",
			open: conversation([]call{bashCall}, approved("t_bash")), mode: Mode{Autopilot: true}},
		{name: "an approved placeholder from before the session asks again on advance",
			open: conversation([]call{bashCall}, approved("t_bash")), mode: Mode{Force: true}, resets: "t_bash"},
		{name: "unless the trusted policy approves the call itself",
			open: conversation([]call{readCall}, approved("t_read")),
			mode: Mode{Force: true}, policy: defaults, run: "t_read"},
		{name: "the user's approval edit runs the call",
			open: conversation([]call{bashCall}, pending("t_bash")), edits: [][2]string{approve("t_bash")},
			mode: Mode{Autopilot: true}, run: "t_bash", wake: true},
		{name: "a placeholder that arrives approved is no approval",
			open: "@You:\nplease\n\n", append: conversation([]call{bashCall}, approved("t_bash"))[len("@You:\nplease\n\n"):],
			mode: Mode{Autopilot: true}},
		{name: "and chatls.advance hands it back to the user",
			open: "@You:\nplease\n\n", append: conversation([]call{bashCall}, approved("t_bash"))[len("@You:\nplease\n\n"):],
			mode: Mode{Force: true, Autopilot: true}, resets: "t_bash"},
		{name: "editing the input after approval revokes it",
			open:  conversation([]call{bashCall}, pending("t_bash")),
			edits: [][2]string{approve("t_bash"), {"make test", "make install"}},
			mode:  Mode{Autopilot: true}, resets: "t_bash", wake: true},
		{name: "a whitespace edit of the input keeps the approval",
			open:  conversation([]call{bashCall}, pending("t_bash")),
			edits: [][2]string{approve("t_bash"), {`{"command":"make test",`, `{ "command" : "make test" ,`}},
			mode:  Mode{Autopilot: true}, run: "t_bash"},
		{name: "an input changed before the approval makes the approval not count",
			open:  conversation([]call{bashCall}, pending("t_bash")),
			edits: [][2]string{{"make test", "make deploy"}, approve("t_bash")},
			mode:  Mode{Autopilot: true}, resets: "t_bash", wake: true},
		{name: "a policy deny wins over the user's approval",
			open: conversation([]call{rmCall}, pending("t_rm")), edits: [][2]string{approve("t_rm")},
			mode: Mode{Autopilot: true}, policy: policy{"bash": approval.Deny}, results: "t_rm=" + TextDenied + " (error)", wake: true},
		{name: "a pending call the policy now denies is denied",
			open: conversation([]call{rmCall}, pending("t_rm")), mode: Mode{Force: true},
			policy: policy{"bash": approval.Deny}, results: "t_rm=" + TextDenied + " (error)"},
		{name: "pending waits for the user",
			open: conversation([]call{bashCall}, pending("t_bash")), mode: Mode{Force: true}},
		{name: "set back to pending, the approval is withdrawn",
			open:  conversation([]call{bashCall}, pending("t_bash")),
			edits: [][2]string{approve("t_bash"), {"status=approved", "status=pending"}, approve("t_bash")},
			mode:  Mode{Autopilot: true}, run: "t_bash", wake: true},
		{name: "rejected: the fixed text",
			open:  conversation([]call{bashCall}, pending("t_bash")),
			edits: [][2]string{{"status=pending", "status=rejected"}},
			mode:  Mode{Autopilot: true}, results: "t_bash=" + TextRejected + " (error)", wake: true},
		{name: "rejected with a reason: the reason",
			open:  conversation([]call{bashCall}, placeholder("t_bash", chatdoc.StatusPending, "not now")),
			edits: [][2]string{{"status=pending", "status=rejected"}},
			mode:  Mode{Autopilot: true}, results: "t_bash=not now (error)", wake: true},
		{name: "denied and aborted blocks get their texts",
			open: "@You:\nq\n\n@Assistant:\n**Tool Use:** `bash` (`t_a`)\n\n```json\n{\"command\":\"ls\",\"timeout\":null}\n```\n\n<!-- flemma:aborted: Stopped by you -->\n\n@You:\n\n" +
				placeholder("t_a", chatdoc.StatusAborted, "") + "\n@Assistant:\n**Tool Use:** `bash` (`t_d`)\n\n```json\n{\"command\":\"ls\",\"timeout\":null}\n```\n\n@You:\n\n" + placeholder("t_d", chatdoc.StatusDenied, ""),
			mode: Mode{Force: true}, results: "t_a=Stopped by you (error) | t_d=" + TextDenied + " (error)"},
		{name: "a filled pending block becomes the user's result on advance, never runs",
			open: conversation([]call{bashCall}, placeholder("t_bash", chatdoc.StatusPending, "I ran it: ok")),
			mode: Mode{Force: true}, results: "t_bash=I ran it: ok"},
		{name: "but not while they type (autopilot)",
			open:  conversation([]call{bashCall}, pending("t_bash")),
			edits: [][2]string{approve("t_bash"), {"status=approved\n", "status=approved\nI ran"}},
			mode:  Mode{Autopilot: true}},
		{name: "a filled approved block is a result too, even approved by the policy",
			open: conversation([]call{readCall}, placeholder("t_read", chatdoc.StatusApproved, "contents")),
			mode: Mode{Force: true}, policy: defaults, results: "t_read=contents"},
		{name: "duplicated IDs never run",
			open: conversation([]call{readCall, {"t_read", "read", `{"path":"b"}`}}, approved("t_read")),
			mode: Mode{Force: true}, policy: defaults},
		{name: "an orphan placeholder never runs",
			open: conversation([]call{readCall}, approved("t_other")), mode: Mode{Force: true}, policy: defaults},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := chatdoc.Parse(c.open)
			l := NewLedger(doc)
			wake := false
			if c.append != "" {
				doc, wake = appendText(t, l, doc, c.append, c.mode.Autopilot)
			}
			for _, e := range c.edits {
				doc, wake = edit(t, l, doc, e[0], e[1], c.mode.Autopilot)
			}
			if wake != c.wake {
				t.Errorf("wake = %v, want %v", wake, c.wake)
			}
			plan := Resolve(doc, l, c.mode, "", c.policy.facts(nil))
			if got := strings.Join(plan.Run, " "); got != c.run {
				t.Errorf("run %q, want %q", got, c.run)
			}
			if got := results(plan.Results); got != c.results {
				t.Errorf("results %q, want %q", got, c.results)
			}
			if got := ids(plan.Resets); got != c.resets {
				t.Errorf("resets %q, want %q", got, c.resets)
			}
			// The gate agrees with the plan at the moment the tool starts.
			for _, id := range plan.Run {
				if _, _, ok := Gate(doc, l, id, c.policy.facts(nil)); !ok {
					t.Errorf("planned %s to run, but the gate refuses it", id)
				}
			}
			for _, r := range doc.ToolResults() {
				if _, _, ok := Gate(doc, l, r.ID, c.policy.facts(nil)); ok && !strings.Contains(" "+c.run+" ", " "+r.ID+" ") {
					t.Errorf("the gate lets %s run, but the plan does not", r.ID)
				}
			}
		})
	}
}

// At most once per ID: what the journal knows decides, before any status.
func TestResolveFollowsTheJournal(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall, writeCall, {"t_old", "read", `{"path":"x"}`}, {"t_res", "read", `{"path":"y"}`}},
		placeholder("t_read", chatdoc.StatusApproved, ""), placeholder("t_bash", chatdoc.StatusPending, ""),
		placeholder("t_write", chatdoc.StatusApproved, ""), placeholder("t_old", chatdoc.StatusApproved, ""),
		placeholder("t_res", chatdoc.StatusApproved, "")))
	l := NewLedger(doc)
	journal := map[string]JournalEntry{
		"t_read":  {State: StartedHere},
		"t_bash":  {State: Interrupted},
		"t_write": {State: Finished, Known: true, Text: "wrote it", Finished: t0},
		"t_old":   {State: Finished, Finished: t0},
		"t_res":   {State: Finished, Known: true, Resolution: true, Text: TextCancelled, IsError: true, Finished: t0},
	}
	plan := Resolve(doc, l, Mode{Force: true}, "", defaults.facts(journal))
	want := "t_bash=" + TextInterrupted + " (error) (recorded) | " +
		"t_old=This tool already ran (finished at 2026-11-23T07:00:01Z), but its output was not recorded; chatls did not run it again. (error) | " +
		"t_res=" + TextCancelled + " (error) | " +
		"t_write=wrote it\n\n[chatls: recorded result of the run that finished at 2026-11-23T07:00:01Z; the tool was not run again.]"
	if got := results(plan.Results); got != want {
		t.Errorf("results\n%q\nwant\n%q", got, want)
	}
	if len(plan.Run) != 0 || len(plan.Resets) != 0 {
		t.Errorf("a tool the journal knows must not run or ask again: run %v, resets %v", plan.Run, plan.Resets)
	}
}

// A tool already taken to run is not planned again, and `only` narrows a
// pass to one block (chatls.run).
func TestResolveSkipsBusyAndHonoursOnly(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, writeCall},
		placeholder("t_read", chatdoc.StatusApproved, ""), placeholder("t_write", chatdoc.StatusApproved, "")))
	l := NewLedger(doc)
	if !l.Take("t_read", t0) || l.Take("t_read", t0) {
		t.Fatal("Take must succeed once")
	}
	if got := Resolve(doc, l, Mode{Force: true}, "", defaults.facts(nil)).Run; !equal(got, []string{"t_write"}) {
		t.Errorf("run %v, want [t_write]", got)
	}
	l.Done("t_read")
	if got := Resolve(doc, l, Mode{Force: true}, "t_read", defaults.facts(nil)).Run; !equal(got, []string{"t_read"}) {
		t.Errorf("only t_read: run %v", got)
	}
}

// The gate names why a tool runs, and re-checks everything at start.
func TestGate(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{readCall, bashCall}, placeholder("t_read", chatdoc.StatusApproved, ""), placeholder("t_bash", chatdoc.StatusPending, "")))
	l := NewLedger(doc)
	if by, _, ok := Gate(doc, l, "t_read", defaults.facts(nil)); !ok || by != ByRule {
		t.Errorf("read: by %q ok %v, want rule", by, ok)
	}
	if _, _, ok := Gate(doc, l, "t_bash", defaults.facts(nil)); ok {
		t.Error("a pending block passed the gate")
	}
	doc, _ = edit(t, l, doc, "status=pending", "status=approved", true)
	if by, _, ok := Gate(doc, l, "t_bash", defaults.facts(nil)); !ok || by != ByUserEdit {
		t.Errorf("bash after the user's approval: by %q ok %v", by, ok)
	}
	filled, _ := edit(t, l, doc, "`t_bash`\n\n```flemma:tool status=approved\n", "`t_bash`\n\n```flemma:tool status=approved\ntext\n", true)
	if _, _, ok := Gate(filled, l, "t_bash", defaults.facts(nil)); ok {
		t.Error("a block the user wrote into passed the gate")
	}
	if _, v, ok := Gate(doc, l, "t_bash", policy{"bash": approval.Deny}.facts(nil)); ok || v.Decision != approval.Deny {
		t.Error("a deny did not stop the gate")
	}
	changed, _ := edit(t, l, doc, "make test", "make it", true)
	if _, _, ok := Gate(changed, l, "t_bash", defaults.facts(nil)); ok {
		t.Error("a changed input passed the gate")
	}
}

// Deleting a tool use drops its approval: a new call pasted with the same
// ID is not approved by the old edit.
func TestDeletedToolUseLosesItsApproval(t *testing.T) {
	doc := chatdoc.Parse(conversation([]call{bashCall}, placeholder("t_bash", chatdoc.StatusPending, "")))
	l := NewLedger(doc)
	doc, _ = edit(t, l, doc, "status=pending", "status=approved", true)
	use := "**Tool Use:** `bash` (`t_bash`)\n\n```json\n" + bashCall.input + "\n```\n"
	doc, _ = edit(t, l, doc, use, "", true)
	if _, ok := l.userApproved["t_bash"]; ok {
		t.Fatal("the approval survived the deletion of its tool use")
	}
	doc, _ = edit(t, l, doc, "@Assistant:\n", "@Assistant:\n"+use, true)
	if _, _, ok := Gate(doc, l, "t_bash", defaults.facts(nil)); ok {
		t.Fatal("a re-pasted call ran on the deleted call's approval")
	}
}

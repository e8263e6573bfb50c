package contextwin

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/google/go-cmp/cmp"
)

var (
	long   = strings.Repeat("A line of prose that makes the message long enough. ", 3)
	output = strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n", 4) + "done"
)

func TestCutPoint(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		naive int // the message the size alone would keep from; -1: keepTokens 0
		want  Cut
	}{{
		name: "the naive cut parts t2 from its result: the cut moves to the turn before the call",
		text: doc(
			msg("System", "Be careful."), // 0
			msg("You", "q1 "+long),       // 1
			msg("Assistant", use("t1")),  // 2
			msg("You", result("t1", output)),
			msg("Assistant", "done "+long),
			msg("You", "q2 "+long),           // 5
			msg("Assistant", use("t2")),      // 6
			msg("You", result("t2", output)), // 7: naive
			msg("Assistant", "ok "+long),
			msg("You", ""),
		),
		naive: 7,
		want:  Cut{From: 1, To: 5, Keep: -1, AtTurn: true},
	}, {
		name: "one question then a long run of calls: after a finished call, not inside one",
		text: doc(
			msg("System", "Be careful."), // 0
			msg("You", "q1 "+long),       // 1
			msg("Assistant", use("t1")),  // 2
			msg("You", result("t1", output)),
			msg("Assistant", use("t2")), // 4
			msg("You", result("t2", output)),
			msg("Assistant", use("t3")),      // 6
			msg("You", result("t3", output)), // 7: naive
			msg("Assistant", use("t4")),
			msg("You", result("t4", output)),
			msg("Assistant", "all done "+long),
			msg("You", ""),
		),
		naive: 7,
		want:  Cut{From: 1, To: 6, Keep: -1},
	}, {
		name: "naive cut at the calling message: it stays with its results",
		text: doc(
			msg("You", "q1 "+long),      // 0
			msg("Assistant", use("t1")), // 1
			msg("You", result("t1", output)),
			msg("Assistant", use("t2")), // 3: naive
			msg("You", result("t2", output)),
			msg("Assistant", "done "+long),
			msg("You", ""),
		),
		naive: 3,
		want:  Cut{From: 0, To: 3, Keep: -1},
	}, {
		name: "a turn start far back loses to a boundary that moves twice as much",
		text: doc(
			msg("You", "q1"),               // 0
			msg("Assistant", "a1"),         // 1
			msg("You", "q2"),               // 2: a turn start that moves 2 short messages
			msg("Assistant", use("t1")),    // 3
			msg("You", result("t1", long)), // 4
			msg("Assistant", use("t2")),    // 5
			msg("You", result("t2", long)),
			msg("Assistant", use("t3")),    // 7
			msg("You", result("t3", long)), // 8: naive
			msg("Assistant", "done "+long),
			msg("You", ""),
		),
		naive: 8,
		want:  Cut{From: 0, To: 7, Keep: -1},
	}, {
		name: "pending placeholders: the unfinished cycle stays whole",
		text: doc(
			msg("You", "q1 "+long), // 0
			msg("Assistant", "a1 "+long),
			msg("You", "q2 "+long),      // 2
			msg("Assistant", use("t1")), // 3: open
			msg("You", pending("t1")),   // 4
		),
		naive: -1,
		want:  Cut{From: 0, To: 2, Keep: -1, AtTurn: true},
	}, {
		name: "the last answer's calls without results: the cycle's next step, they stay",
		text: doc(
			msg("You", "q1 "+long), // 0
			msg("Assistant", "a1 "+long),
			msg("You", "q2 "+long),                     // 2
			msg("Assistant", "let me look", use("t1")), // 3: open
			msg("You", ""),
		),
		naive: -1,
		want:  Cut{From: 0, To: 2, Keep: -1, AtTurn: true},
	}, {
		name: "an unanswered call in an earlier turn is history and blocks nothing",
		text: doc(
			msg("You", "q1 "+long),      // 0
			msg("Assistant", use("t0")), // 1: orphan
			msg("You", "never mind "+long),
			msg("Assistant", "ok "+long),
			msg("You", "q3 "+long), // 4
			msg("Assistant", "a3 "+long),
			msg("You", ""),
		),
		naive: -1,
		want:  Cut{From: 0, To: 6, Keep: -1, AtTurn: true},
	}, {
		name: "a @System: message mid-conversation is the system prompt: it stays",
		text: doc(
			msg("You", "q1 "+long), // 0
			msg("Assistant", "a1 "+long),
			msg("System", "From now on answer in French."), // 2
			msg("You", "q2 "+long),
			msg("Assistant", "a2 "+long),
			msg("You", "q3 "+long), // 5: naive
			msg("Assistant", "a3 "+long),
			msg("You", ""),
		),
		naive: 5,
		want:  Cut{From: 0, To: 5, Keep: 2, AtTurn: true},
	}, {
		name: "a background call stays with its job's result",
		text: doc(
			msg("You", "q1 "+long),      // 0
			msg("Assistant", use("t1")), // 1
			msg("You", "**Tool Result:** `t1` (job=j1)\n\n```\nRunning in background as j1.\n```\n"),
			msg("Assistant", "waiting "+long),                                        // 3
			msg("You", "**Job Result:** `j1`\n\n```\n"+output+"\n```\n", "q2 "+long), // 4: naive
			msg("Assistant", "a2 "+long),
			msg("You", ""),
		),
		naive: 4,
		want:  Cut{From: 0, To: 1, Keep: -1}, // nothing else is free: the job ties 2..4, the call 1..2
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustParse(t, tt.text)
			keep := 0
			if tt.naive >= 0 {
				keep = keepUpTo(t, d, tt.naive)
			}
			got, err := CutPoint(d, keep)
			if err != nil {
				t.Fatalf("CutPoint: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CutPoint (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCutPointNothingToCut(t *testing.T) {
	tests := []struct {
		name, text string
		keep       int
		want       string
	}{{
		name: "all within the kept part",
		text: doc(msg("System", "s"), msg("You", "q1"), msg("Assistant", "a1"), msg("You", "q2"), msg("Assistant", "a2"), msg("You", "")),
		keep: 50000,
		want: "nothing to compact: the conversation has only 3 turns, all within the newest 50k tokens that compaction keeps (context.keepRecent)",
	}, {
		name: "an unfinished cycle right after the system message",
		text: doc(msg("System", "s"), msg("Assistant", use("t1")), msg("You", pending("t1"))),
		want: "nothing to compact: the tool calls at line 4 are unfinished and nothing before them can move; finish or reject them first",
	}, {
		name: "no messages",
		text: "just text\n",
		want: "nothing to compact: the document has no messages",
	}, {
		name: "only the system message and the question",
		text: doc(msg("System", "s"), msg("You", "q1")),
		want: "nothing to compact: the conversation has only 1 turns, all within the newest 0 tokens that compaction keeps (context.keepRecent)",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CutPoint(chatdoc.Parse(tt.text), tt.keep)
			if err == nil || err.Error() != tt.want {
				t.Errorf("CutPoint error:\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

// On generated conversations, whatever is kept, no cut parts a call from
// its result and the kept part holds at least keepTokens.
func TestCutPointNeverPartsACall(t *testing.T) {
	text := chatgen.Generate(200<<10, 7)
	d := chatdoc.Parse(text)
	for _, keep := range []int{0, 100, 1000, 5000, 20000, 40000} {
		c, err := CutPoint(d, keep)
		if err != nil {
			t.Fatalf("keep %d: %v", keep, err)
		}
		if kept := d.Len() - d.MessageSpan(c.To).Start; kept < keep*bytesPerToken {
			t.Errorf("keep %d: only %d bytes kept", keep, kept)
		}
		for _, r := range d.ToolResults() {
			u := d.ToolUse(r.ID)
			if (u.Message < c.To) != (r.Message < c.To) {
				t.Errorf("keep %d: cut before message %d parts %s (use in %d, result in %d)", keep, c.To, r.ID, u.Message, r.Message)
			}
		}
		// chatgen's @You: messages carry the results and the next question
		// together, so the cut falls before an answer.
		if c.AtTurn || d.Message(c.To).Role != "Assistant" {
			t.Errorf("keep %d: cut before message %d (%s, at a turn: %v), want one before an answer", keep, c.To, d.Message(c.To).Role, c.AtTurn)
		}
	}
}

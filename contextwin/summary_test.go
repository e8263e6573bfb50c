package contextwin

import (
	"strings"
	"testing"
)

func TestSummaryRequestCarriesEveryMovedMessage(t *testing.T) {
	d := mustParse(t, doc(
		msg("You", "q1: fix the parser"),
		msg("System", "Answer in French."), // stays: the system prompt
		msg("Assistant", bash("t1", "go test ./parser")),
		msg("You", result("t1", bigOutput(120, "t1"))),
		msg("Assistant", "a1: found it"),
		msg("You", "q2 "+long), // kept
		msg("Assistant", "a2"),
	))
	cut := Cut{From: 0, To: 5, Keep: 1}
	req := SummaryRequest(d, cut, 0)
	text := d.Text()
	for i := cut.From; i < cut.To; i++ {
		s := d.MessageSpan(i)
		if in := strings.Contains(req, text[s.Start:s.End]); in != (i != cut.Keep) {
			t.Errorf("message %d in the request: %v, want %v", i, in, i != cut.Keep)
		}
	}
	for _, kept := range []string{"q2 ", "a2", "Answer in French."} {
		if strings.Contains(req, kept) {
			t.Errorf("the request carries %q, which is not moved", kept)
		}
	}
	if !strings.HasPrefix(req, summaryIntro+"\n\n<conversation>\n@You:\nq1") || !strings.HasSuffix(req, "</conversation>\n\n"+SummaryInstruction) {
		t.Errorf("request's shape:\n%s", req)
	}
	for _, want := range []string{"Goal", "Decisions", "Files touched", "Open work", "constraints and corrections"} {
		if !strings.Contains(SummaryInstruction, want) {
			t.Errorf("SummaryInstruction asks for no %q", want)
		}
	}

	// Over the budget, the large output is shortened and every message
	// is still there.
	short := SummaryRequest(d, cut, 100)
	if len(short) >= len(req)-2000 {
		t.Errorf("over budget: %d bytes, not much less than %d", len(short), len(req))
	}
	for _, want := range []string{"@You:\nq1: fix the parser", bash("t1", "go test ./parser"), "t1 line 010", "[trimmed for this summary]", "a1: found it"} {
		if !strings.Contains(short, want) {
			t.Errorf("over budget, the request lacks %q", want)
		}
	}
	if strings.Contains(short, "t1 line 011") {
		t.Errorf("over budget, the output was not shortened")
	}
	if within := SummaryRequest(d, cut, 1<<20); within != req {
		t.Errorf("within the budget the request changed")
	}
}

package usagelog

import (
	"os"
	"path/filepath"
	"testing"
)

func TestChainTotalsSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	cost := func(v float64) *float64 { return &v }
	l := Open(dir)
	for _, e := range []Entry{
		{Chain: "a", InputTokens: 10, OutputTokens: 5, CostUSD: cost(0.25), Outcome: OK},
		{Chain: "b", InputTokens: 1, CostUSD: cost(9), Outcome: OK},
		{Chain: "a", InputTokens: 20, CacheReadTokens: 7, Outcome: Error},
	} {
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	// A torn last line (a crash mid-write) is skipped, not fatal.
	f, _ := os.OpenFile(filepath.Join(dir, FileName), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"chain":"a","costUSD":`)
	f.Close()
	got, err := Open(dir).Chain("a")
	if err != nil {
		t.Fatal(err)
	}
	want := Totals{Responses: 2, InputTokens: 30, OutputTokens: 5, CacheReadTokens: 7, CostUSD: 0.25, UnknownCost: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if none, err := Open(t.TempDir()).Chain("a"); err != nil || none.Responses != 0 {
		t.Errorf("a missing log: %+v %v", none, err)
	}
}

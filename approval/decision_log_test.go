package approval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run's entry keeps how it ended (outcome, timed_out) next to what the
// verdict fills in; entries that are no run leave both out.
func TestDecisionLogRunOutcome(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	l, err := OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	v := Verdict{Decision: Approve, Reason: "rule", Steps: []Step{{Resolver: "user", Priority: 100, Decision: Approve, Rule: "bash(sleep *)", File: "/u/config.toml", Line: 3}}}
	start := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	end := start.Add(time.Second)
	code := 137
	if err := l.Write(v.LogEntry(LogEntry{ToolID: "t1", Tool: "bash", Source: "rule", Start: &start, End: &end, ExitStatus: &code, TimedOut: true, Outcome: "timeout"})); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(v.LogEntry(LogEntry{ToolID: "t2", Tool: "bash", Source: "autopilot"})); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", data)
	}
	var run map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &run); err != nil {
		t.Fatal(err)
	}
	if run["outcome"] != "timeout" || run["timed_out"] != true || run["exit_status"] != float64(137) || run["rule"] != "bash(sleep *)" || run["line"] != float64(3) {
		t.Errorf("run entry = %s", lines[0])
	}
	if strings.Contains(lines[1], `"outcome"`) || strings.Contains(lines[1], `"timed_out"`) {
		t.Errorf("a decision that is no run must leave outcome and timed_out out: %s", lines[1])
	}
}

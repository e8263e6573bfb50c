package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// runEntry is a decision-log line of a run (SPEC §4).
type runEntry struct {
	Time       time.Time  `json:"time"`
	Document   string     `json:"document"`
	ToolID     string     `json:"tool_id"`
	Tool       string     `json:"tool"`
	InputHash  string     `json:"input_hash"`
	Decision   string     `json:"decision"`
	Source     string     `json:"source"`
	Start      *time.Time `json:"start"`
	End        *time.Time `json:"end"`
	ExitStatus *int       `json:"exit_status"`
	Truncated  *bool      `json:"truncated"`
	ApprovedBy string     `json:"approved_by"`
	TimedOut   bool       `json:"timed_out"`
	Outcome    string     `json:"outcome"`
	Rule       string     `json:"rule"`
	Reason     string     `json:"reason"`
	Target     string     `json:"target"`
	Trace      []struct {
		Resolver string `json:"resolver"`
		Decision string `json:"decision"`
		Rule     string `json:"rule"`
	} `json:"trace"`
}

// runEntries are the log lines with a start (runs, not categorizations).
func runEntries(t *testing.T, s *session, id string) []runEntry {
	t.Helper()
	f, err := os.Open(filepath.Join(s.state, "chatls", "decisions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []runEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e runEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("a decision-log line is not JSON: %v\n%s", err, sc.Bytes())
		}
		if e.ToolID == id && e.Start != nil {
			out = append(out, e)
		}
	}
	return out
}

// oneRun checks the fields every run entry has and returns it.
func oneRun(t *testing.T, s *session, uri, id, tool string) runEntry {
	t.Helper()
	entries := runEntries(t, s, id)
	if len(entries) != 1 {
		t.Fatalf("want one run entry for %s, got %d", id, len(entries))
	}
	e := entries[0]
	if e.Document != uri || e.Tool != tool || len(e.InputHash) < 16 || e.Decision != "approve" {
		t.Errorf("entry identifies the call wrongly: %+v", e)
	}
	if e.End == nil || e.End.Before(*e.Start) || e.Time.IsZero() {
		t.Errorf("start/end wrong: %+v", e)
	}
	if e.Truncated == nil {
		t.Error("truncated missing")
	}
	if len(e.Trace) == 0 {
		t.Error("the policy trace is missing")
	}
	for _, st := range e.Trace {
		if st.Resolver == "chatls" {
			t.Errorf("the trace must be the policy's own, no synthetic chatls step: %+v", e.Trace)
		}
	}
	if e.Reason == "" {
		t.Error("the reason is missing")
	}
	return e
}

func bashCall(id, command string, timeout string) string {
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`" + id + "`)\n\n```json\n{\"command\":\"" + command + "\",\"timeout\":" + timeout + "}\n```\n\n" +
		"@You:\n\n**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

// A run approved by the user's edit: start, end, exit status, not
// truncated, approved by "user edit", outcome finished. A failing command
// logs its code and outcome error; a cancelled one outcome cancelled.
func TestDecisionLogRecordsUserApprovedRuns(t *testing.T) {
	s := start(t, sessionOptions{})
	ok := s.open("ok.chat", bashCall("t_ok", "echo logged", "null"))
	fail := s.open("fail.chat", bashCall("t_fail", "exit 3", "null"))
	cancelled := s.open("cancel.chat", bashCall("t_cancel", "sleep 60", "null"))
	s.settle(cancelled)
	for _, uri := range []string{ok, fail, cancelled} {
		if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
			t.Fatal(err)
		}
	}
	s.waitText(ok, "```\nlogged\n```")
	s.waitText(fail, "Command exited with code 3")
	s.waitDiagnostic(cancelled, "running bash")
	if out, err := s.command("chatls.cancel", map[string]any{"uri": cancelled, "id": "t_cancel"}); err != nil || out["cancelled"] != true {
		t.Fatalf("cancel: %v %v", out, err)
	}
	s.waitText(cancelled, "User aborted tool execution.")

	e := oneRun(t, s, ok, "t_ok", "bash")
	if e.Source != "user edit" || e.ApprovedBy != "user edit" || e.ExitStatus == nil || *e.ExitStatus != 0 || *e.Truncated ||
		e.Outcome != "finished" || e.TimedOut {
		t.Errorf("user-approved run logged as %+v", e)
	}
	e = oneRun(t, s, fail, "t_fail", "bash")
	if e.ExitStatus == nil || *e.ExitStatus != 3 || e.Outcome != "error" {
		t.Errorf("`exit 3` logged with exit status %v, outcome %q", e.ExitStatus, e.Outcome)
	}
	e = oneRun(t, s, cancelled, "t_cancel", "bash")
	if e.Outcome != "cancelled" || e.TimedOut {
		t.Errorf("a cancelled run logged with outcome %q, timed_out %v", e.Outcome, e.TimedOut)
	}
}

// A run approved by a rule logs source "rule" and the rule in its trace; a
// long output logs truncated; a timeout logs the killed process's status.
func TestDecisionLogRecordsRuleRunsTruncationAndTimeouts(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"autoApprove": []string{"$default", "bash(seq *)", "bash(sleep *)"}}}}})
	long := s.open("long.chat", strings.Replace(bashCall("t_seq", "seq 1 5000", "null"), "status=pending", "status=approved", 1))
	slow := s.open("slow.chat", strings.Replace(bashCall("t_slow", "sleep 30", "1"), "status=pending", "status=approved", 1))
	s.advance(long)
	s.advance(slow)
	s.waitText(long, "Full output: ")
	s.waitText(slow, "Command timed out after 1 seconds.")

	e := oneRun(t, s, long, "t_seq", "bash")
	if e.Source != "rule" || e.ApprovedBy != "rule" || !*e.Truncated || e.ExitStatus == nil || *e.ExitStatus != 0 ||
		e.Outcome != "finished" || e.Rule != "bash(seq *)" {
		t.Errorf("rule-approved long run logged as %+v", e)
	}
	named := false
	for _, st := range e.Trace {
		named = named || st.Rule == "bash(seq *)"
	}
	if !named {
		t.Errorf("the trace must name the rule bash(seq *): %+v", e.Trace)
	}
	e = oneRun(t, s, slow, "t_slow", "bash")
	if e.ExitStatus == nil || *e.ExitStatus != 128+9 {
		t.Errorf("a timed-out run must log the status of the killed process (137), got %v", e.ExitStatus)
	}
	if e.Outcome != "timeout" || !e.TimedOut || e.Rule != "bash(sleep *)" {
		t.Errorf("a timed-out run logged with outcome %q, timed_out %v, rule %q", e.Outcome, e.TimedOut, e.Rule)
	}
}

package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// LogEntry is one line of the decision log (SPEC §4).
type LogEntry struct {
	Time       time.Time  `json:"time"`
	Document   string     `json:"document"`
	ToolID     string     `json:"tool_id"`
	Tool       string     `json:"tool"`
	InputHash  string     `json:"input_hash"`
	Decision   string     `json:"decision"`
	Source     string     `json:"source"` // rule | user edit | autopilot
	Start      *time.Time `json:"start,omitempty"`
	End        *time.Time `json:"end,omitempty"`
	ExitStatus *int       `json:"exit_status,omitempty"`
	Truncated  bool       `json:"truncated"`
	ApprovedBy string     `json:"approved_by,omitempty"`
	// TimedOut is set for a run that hit its timeout.
	TimedOut bool `json:"timed_out,omitempty"`
	// Outcome is how a run ended: finished, error (an error result, e.g. a
	// non-zero exit), timeout, cancelled (by the user) or interrupted
	// (chatls stopped while it ran). Empty for entries that are no run.
	Outcome string `json:"outcome,omitempty"`
	// Rule, File and Line name the rule that decided (empty when none did).
	Rule string `json:"rule,omitempty"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Target is the target the call runs on (SPEC §8); empty: this machine.
	Target string `json:"target,omitempty"`
	// Reason is the verdict's one-line summary.
	Reason string `json:"reason,omitempty"`
	// Trace is the verdict's steps, so the log explains itself.
	Trace []Step `json:"trace,omitempty"`
}

// LogEntry completes e with what the verdict knows: the decision (unless e
// already has one, e.g. a run the user approved by hand), the deciding rule
// with its file and line, the reason and the whole trace. The server builds
// its entries with it: s.decisions.Write(v.LogEntry(approval.LogEntry{…})).
func (v Verdict) LogEntry(e LogEntry) LogEntry {
	if e.Decision == "" {
		e.Decision = string(v.Decision)
	}
	if s, ok := v.DecidingStep(); ok {
		e.Rule, e.File, e.Line = s.Rule, s.File, s.Line
	}
	if e.Reason == "" {
		e.Reason = v.Reason
	}
	if e.Trace == nil {
		e.Trace = v.Steps
	}
	return e
}

// DecidingStep is the step whose answer became the decision: the first
// deny, else the first step (in priority order) that answered the same as
// the verdict and names a rule, else the first that answered the same.
func (v Verdict) DecidingStep() (Step, bool) {
	var first *Step
	for i := range v.Steps {
		s := &v.Steps[i]
		if s.Decision != v.Decision {
			continue
		}
		if s.Rule != "" {
			return *s, true
		}
		if first == nil {
			first = s
		}
	}
	if first != nil {
		return *first, true
	}
	return Step{}, false
}

// InputHash is the sha256 of the input's canonical JSON (keys sorted), the
// value LogEntry.InputHash and approval revocation compare.
func InputHash(input map[string]any) string {
	b, _ := json.Marshal(input) // encoding/json sorts map keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// DecisionLog appends JSON lines to a file; safe for concurrent use.
type DecisionLog struct {
	mu sync.Mutex
	f  *os.File
}

// OpenDecisionLog opens (creating directories and file) the JSONL log for appending.
func OpenDecisionLog(path string) (*DecisionLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create decision log directory: %w (set $XDG_STATE_HOME to a writable directory)", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open decision log: %w", err)
	}
	return &DecisionLog{f: f}, nil
}

// Write appends one entry as a single line (one write call, so lines never interleave).
func (l *DecisionLog) Write(e LogEntry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encode decision log entry: %w", err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("decision log is closed")
	}
	_, err = l.f.Write(b)
	return err
}

// Close closes the file.
func (l *DecisionLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

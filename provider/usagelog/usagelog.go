// Package usagelog is `$XDG_STATE_HOME/chatls/usage.jsonl` (SPEC §7
// "Seeing it work"): one line per response, after its retries. send.maxCost
// counts a chain's spending from it, so a restart does not reset it.
package usagelog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileName is the log's name in the state directory.
const FileName = "usage.jsonl"

// Outcomes of a response.
const (
	OK        = "ok"
	Error     = "error"
	Cancelled = "cancelled"
)

// Entry is one response.
type Entry struct {
	Time             time.Time `json:"time"`
	URI              string    `json:"uri"`
	Chain            string    `json:"chain"`
	Provider         string    `json:"provider"`
	Model            string    `json:"model"`
	InputTokens      int       `json:"inputTokens"`
	OutputTokens     int       `json:"outputTokens"`
	CacheReadTokens  int       `json:"cacheReadTokens"`
	CacheWriteTokens int       `json:"cacheWriteTokens"`
	CostUSD          *float64  `json:"costUSD"` // null when the price is unknown
	DurationMs       int64     `json:"durationMs"`
	Attempts         int       `json:"attempts"`
	Outcome          string    `json:"outcome"`
}

// Log appends entries to one file; safe for concurrent use.
type Log struct {
	path string
	mu   sync.Mutex
}

// Open is the log in dir (created on the first entry).
func Open(dir string) *Log { return &Log{path: filepath.Join(dir, FileName)} }

// Path is the file.
func (l *Log) Path() string { return l.path }

// Append writes one entry as one line.
func (l *Log) Append(e Entry) error {
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Totals are summed entries.
type Totals struct {
	Responses        int     `json:"responses"`
	InputTokens      int     `json:"inputTokens"`
	OutputTokens     int     `json:"outputTokens"`
	CacheReadTokens  int     `json:"cacheReadTokens"`
	CacheWriteTokens int     `json:"cacheWriteTokens"`
	CostUSD          float64 `json:"costUSD"`
	UnknownCost      int     `json:"unknownCost"` // responses whose price is unknown
}

// Add counts an entry.
func (t *Totals) Add(e Entry) {
	t.Responses++
	t.InputTokens += e.InputTokens
	t.OutputTokens += e.OutputTokens
	t.CacheReadTokens += e.CacheReadTokens
	t.CacheWriteTokens += e.CacheWriteTokens
	if e.CostUSD != nil {
		t.CostUSD += *e.CostUSD
	} else {
		t.UnknownCost++
	}
}

// Sum adds up the entries keep selects. A missing log is no entries; a
// line that does not decode (a crash mid-write) is skipped.
func (l *Log) Sum(keep func(Entry) bool) (Totals, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var t Totals
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && keep(e) {
			t.Add(e)
		}
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("read %s: %w", l.path, err)
	}
	return t, nil
}

// Chain sums one chain's responses.
func (l *Log) Chain(chain string) (Totals, error) {
	return l.Sum(func(e Entry) bool { return e.Chain == chain })
}

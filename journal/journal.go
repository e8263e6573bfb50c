// Package journal records tool executions on disk so that a tool runs at most
// once per ID, even across a crash and restart (SPEC §2). A start is written
// and synced before the tool's process begins; a tool found started but not
// finished by an earlier process is never run again.
package journal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// StoppedText is the result written for a tool that an earlier chatls process
// started and never finished.
const StoppedText = "chatls stopped while this tool was running; it was not run again."

// FileName is the journal's file inside the state directory.
const FileName = "executions.jsonl"

type entry struct {
	Event    string    `json:"event"` // "start" | "finish"
	Document string    `json:"document"`
	ToolID   string    `json:"tool_id"`
	PID      int       `json:"pid"`
	Time     time.Time `json:"time"`
}

// Journal is an append-only, fsynced log of starts and finishes.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
	// interrupted holds document+ID keys started by an earlier process and never finished.
	interrupted map[string]bool
	// started holds keys started by this process.
	started map[string]bool
}

func key(document, id string) string { return document + "\x00" + id }

// Open reads the journal in dir (creating it) and remembers which tools an
// earlier process left unfinished.
func Open(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	j := &Journal{path: path, interrupted: map[string]bool{}, started: map[string]bool{}}
	if err := j.load(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the execution journal %s: %w", path, err)
	}
	j.f = f
	return j, nil
}

func (j *Journal) load() error {
	f, err := os.Open(j.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the execution journal %s: %w", j.path, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e entry
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue // a torn last line after a crash
		}
		k := key(e.Document, e.ToolID)
		switch e.Event {
		case "start":
			j.interrupted[k] = true
		case "finish":
			delete(j.interrupted, k)
		}
	}
	return sc.Err()
}

// Interrupted reports whether an earlier process started this tool and never finished it.
func (j *Journal) Interrupted(document, id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.interrupted[key(document, id)]
}

// Start records that a tool is about to run and syncs it to disk. It fails
// when the tool was already started, by this process or an earlier one: the
// caller must not run it.
func (j *Journal) Start(document, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := key(document, id)
	if j.started[k] || j.interrupted[k] {
		return fmt.Errorf("tool %s was already started", id)
	}
	if err := j.append(entry{Event: "start", Document: document, ToolID: id}); err != nil {
		return err
	}
	j.started[k] = true
	return nil
}

// Finish records that a tool's result was produced. It is not synced: if
// it is lost in a crash, the tool only looks interrupted, which can never
// make it run twice.
func (j *Journal) Finish(document, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.write(entry{Event: "finish", Document: document, ToolID: id})
}

// Resolve marks an interrupted tool as dealt with (its error result written).
func (j *Journal) Resolve(document, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := key(document, id)
	if !j.interrupted[k] {
		return nil
	}
	// Keep it in started so it can never run again in this process either.
	delete(j.interrupted, k)
	j.started[k] = true
	return j.append(entry{Event: "finish", Document: document, ToolID: id})
}

// append writes an entry and syncs it to disk before returning.
func (j *Journal) append(e entry) error {
	if err := j.write(e); err != nil {
		return err
	}
	return j.f.Sync()
}

func (j *Journal) write(e entry) error {
	e.PID = os.Getpid()
	e.Time = time.Now().UTC()
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write the execution journal: %w", err)
	}
	return nil
}

// Close closes the journal file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.f.Close()
}

// Package journal records tool executions on disk so that a tool runs at most
// once per ID, even across a crash and restart (SPEC §2). A start is written
// and synced before the tool's process begins; a finish, with the result that
// was produced, is written before the result goes into the document. A tool
// found started by an earlier process, finished or not, is never run again:
// an unfinished one gets StoppedText, a finished one its recorded result.
//
// Only the start is synced: it is what makes "at most once" hold. A finish
// written without fsync survives a crash of chatls (kill -9; the kernel
// keeps the write); only a crash of the whole machine can lose it, and then
// the tool looks interrupted — StoppedText — and still never runs twice.
// Syncing it would put a second fsync on every approval's round trip.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// FileName is the journal's file inside the state directory.
const FileName = "executions.jsonl"

// maxRecordedBytes bounds the result text kept per finish. Tool results are
// already cut to 50 KB by the output limits; this only guards the journal.
const maxRecordedBytes = 1 << 20

// maxLineBytes bounds one journal line when reading (a result JSON-escaped).
const maxLineBytes = 8 << 20

// Kinds of finish entries.
const (
	// KindOutput is a result the tool produced.
	KindOutput = "output"
	// KindResolution is a text chatls wrote instead of running the tool
	// (e.g. StoppedText for an interrupted run).
	KindResolution = "resolution"
)

// ErrStarted is Start's error for a tool that must not run: it was started
// or finished before, by this process or an earlier one.
var ErrStarted = errors.New("the tool was already started")

type entry struct {
	Event    string    `json:"event"` // "start" | "finish"
	Document string    `json:"document"`
	ToolID   string    `json:"tool_id"`
	PID      int       `json:"pid"`
	Time     time.Time `json:"time"`
	// Finish entries record what was written as the result.
	Kind    string  `json:"kind,omitempty"`
	Result  *string `json:"result,omitempty"`
	IsError bool    `json:"is_error,omitempty"`
}

// State is what the journal knows about a tool ID.
type State int

const (
	// Unknown: never started; it may run.
	Unknown State = iota
	// Running: started by this process and not finished.
	Running
	// Interrupted: started by an earlier process that never finished it.
	Interrupted
	// Finished: a result was produced (by this or an earlier process).
	Finished
)

// Record is the result recorded when a tool finished.
type Record struct {
	Text    string
	IsError bool
	Kind    string // KindOutput or KindResolution
	Time    time.Time
	// Started is when the run began (its start entry); zero for a result
	// chatls wrote without running the tool, or a start not on record.
	Started time.Time
	// Known is false for finishes written without their result (older journals).
	Known bool
}

// Journal is an append-only, fsynced log of starts and finishes.
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	path string
	// interrupted holds document+ID keys started by an earlier process and never finished.
	interrupted map[string]bool
	// started holds keys started by this process and not finished.
	started map[string]bool
	// finished maps keys to the offset of their last finish line.
	finished map[string]int64
	// startedAt maps keys to the time of their last start entry.
	startedAt map[string]time.Time
}

func key(document, id string) string { return document + "\x00" + id }

// Open reads the journal in dir (creating it) and remembers which tools an
// earlier process finished or left unfinished.
func Open(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	j := &Journal{path: path, interrupted: map[string]bool{}, started: map[string]bool{}, finished: map[string]int64{}, startedAt: map[string]time.Time{}}
	torn, err := j.load()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the execution journal %s: %w", path, err)
	}
	j.f = f
	if torn {
		// A crash cut the last line: end it, or the next entry would be glued
		// to it and lost on the next load.
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair the execution journal %s: %w", path, err)
		}
	}
	return j, nil
}

// load reads every entry; torn reports a last line without its newline.
func (j *Journal) load() (torn bool, err error) {
	f, err := os.Open(j.path)
	if os.IsNotExist(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the execution journal %s: %w", j.path, err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var size int64
	for {
		line, err := r.ReadBytes('\n')
		offset := size
		size += int64(len(line))
		if len(line) > 0 && line[len(line)-1] != '\n' {
			torn = true
		}
		var e entry
		if len(line) > 0 && json.Unmarshal(bytes.TrimSpace(line), &e) == nil {
			k := key(e.Document, e.ToolID)
			switch e.Event {
			case "start":
				if _, done := j.finished[k]; !done {
					j.interrupted[k] = true
				}
				j.startedAt[k] = e.Time
			case "finish":
				delete(j.interrupted, k)
				j.finished[k] = offset
			}
		}
		if err == io.EOF {
			return torn, nil
		}
		if err != nil {
			return false, fmt.Errorf("read the execution journal %s: %w", j.path, err)
		}
	}
}

// State reports what the journal knows about a tool.
func (j *Journal) State(document, id string) State {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := key(document, id)
	switch {
	case j.started[k]:
		return Running
	case j.interrupted[k]:
		return Interrupted
	}
	if _, ok := j.finished[k]; ok {
		return Finished
	}
	return Unknown
}

// Interrupted reports whether an earlier process started this tool and never finished it.
func (j *Journal) Interrupted(document, id string) bool {
	return j.State(document, id) == Interrupted
}

// Start records that a tool is about to run and syncs it to disk. It fails
// when the tool was already started or finished, by this process or an
// earlier one: the caller must not run it.
func (j *Journal) Start(document, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	k := key(document, id)
	if _, done := j.finished[k]; done || j.started[k] || j.interrupted[k] {
		return fmt.Errorf("tool %s: %w", id, ErrStarted)
	}
	e := entry{Event: "start", Document: document, ToolID: id, Time: time.Now().UTC()}
	if _, err := j.append(e, true); err != nil {
		return err
	}
	j.started[k] = true
	j.startedAt[k] = e.Time
	return nil
}

// Finish records the result a tool produced (not synced: see the package
// comment), before the result is written into the document: if that write never lands, or the document
// is reopened from an older copy, the recorded result is written instead of
// running the tool again.
func (j *Journal) Finish(document, id, result string, isError bool) error {
	return j.finish(document, id, KindOutput, result, isError)
}

// Resolve records the result chatls wrote for a tool it did not run (an
// interrupted one gets StoppedText). The tool can never run afterwards.
func (j *Journal) Resolve(document, id, text string) error {
	return j.finish(document, id, KindResolution, text, true)
}

func (j *Journal) finish(document, id, kind, text string, isError bool) error {
	if len(text) > maxRecordedBytes {
		text = text[:maxRecordedBytes] + "\n[cut by the chatls journal]"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	k := key(document, id)
	offset, err := j.append(entry{Event: "finish", Document: document, ToolID: id, Kind: kind, Result: &text, IsError: isError}, false)
	// Whatever happened on disk, this process never runs it again.
	delete(j.started, k)
	delete(j.interrupted, k)
	j.finished[k] = offset // -1 if the write failed: Recorded then knows no text
	return err
}

// Recorded returns the result recorded for a finished tool.
func (j *Journal) Recorded(document, id string) (Record, bool) {
	j.mu.Lock()
	offset, ok := j.finished[key(document, id)]
	started := j.startedAt[key(document, id)]
	j.mu.Unlock()
	if !ok {
		return Record{}, false
	}
	if offset < 0 {
		return Record{Started: started}, true
	}
	f, err := os.Open(j.path)
	if err != nil {
		return Record{}, true
	}
	defer f.Close()
	r := bufio.NewReader(io.NewSectionReader(f, offset, maxLineBytes))
	line, err := r.ReadBytes('\n')
	var e entry
	if (err != nil && err != io.EOF) || json.Unmarshal(bytes.TrimSpace(line), &e) != nil ||
		e.Event != "finish" || e.Document != document || e.ToolID != id || e.Result == nil {
		return Record{Time: e.Time, Started: started}, true
	}
	kind := e.Kind
	if kind == "" {
		kind = KindOutput
	}
	if kind == KindResolution {
		started = time.Time{} // nothing ran for it
	}
	return Record{Text: *e.Result, IsError: e.IsError, Kind: kind, Time: e.Time, Known: true, Started: started}, true
}

// append writes an entry, syncs it to disk and returns its offset.
// append writes one entry and returns its offset; sync waits for the disk.
func (j *Journal) append(e entry, sync bool) (int64, error) {
	e.PID = os.Getpid()
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return -1, err
	}
	n, err := j.f.Write(append(line, '\n'))
	if err != nil {
		return -1, fmt.Errorf("write the execution journal: %w", err)
	}
	// O_APPEND: this descriptor's position is the end of our own line, even
	// when another chatls process appends to the same journal.
	end, err := j.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return -1, err
	}
	if sync {
		err = j.f.Sync()
	}
	return end - int64(n), err
}

// Close closes the journal file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.f.Close()
}

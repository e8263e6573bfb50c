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
//
// Several chatls processes share one journal (an editor's and a terminal's,
// two editors on one document), so "at most once" must hold between them
// too. Start checks and records under an exclusive flock of the journal
// file, on what the file says at that moment (entries other processes
// appended since are read first), and the start is on disk before the lock
// is released — so of two processes starting the same ID, exactly one
// succeeds. Each process holds a lock file under live/ for as long as its
// journal is open: a start by a process whose lock is held is running
// elsewhere (not interrupted); once that process is gone — even by kill -9,
// which releases its locks — its unfinished starts are interrupted.
package journal

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FileName is the journal's file inside the state directory.
const FileName = "executions.jsonl"

// liveDir holds one lock file per process with the journal open, named by
// the process's token: held, the process is alive.
const liveDir = "live"

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
	Event    string `json:"event"` // "start" | "finish" | "issue"
	Document string `json:"document"`
	ToolID   string `json:"tool_id"`
	PID      int    `json:"pid"`
	// Proc is the writing process's token (its lock file in live/); empty
	// in journals of older chatls versions.
	Proc string    `json:"proc,omitempty"`
	Time time.Time `json:"time"`
	// Finish entries record what was written as the result.
	Kind    string  `json:"kind,omitempty"`
	Result  *string `json:"result,omitempty"`
	IsError bool    `json:"is_error,omitempty"`
	// Issue entries record the input hash of the placeholder issued.
	Hash string `json:"hash,omitempty"`
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
	// RunningElsewhere: started by another chatls process that is still
	// alive and has not finished it; its result will be recorded here.
	RunningElsewhere
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
	f    *os.File // read and appended to (O_APPEND); flocked by Start
	path string
	dir  string
	// proc is this process's token; live its lock file, held while open.
	proc string
	live *os.File
	// read is how far the file has been read: entries after it were
	// appended since, by this process or another.
	read int64
	// unfinished maps document+ID keys started by another process (this
	// one's earlier life included) and never finished to that process's
	// token: interrupted once the process is gone, running elsewhere while
	// it lives.
	unfinished map[string]string
	// started holds keys started by this process and not finished.
	started map[string]bool
	// finished maps keys to the offset of their last finish line.
	finished map[string]int64
	// startedAt maps keys to the time of their last start entry.
	startedAt map[string]time.Time
	// issued maps keys to the input hash their placeholder was last issued
	// as pending for (issued.go).
	issued map[string]string
	// gone caches tokens of processes known dead (they never come back).
	gone map[string]bool
	// refreshed is when State or Recorded last read the file.
	refreshed time.Time
}

// refreshEvery bounds how often a question that only reports reads what
// other processes appended (see refreshOften).
const refreshEvery = 20 * time.Millisecond

func key(document, id string) string { return document + "\x00" + id }

// Open reads the journal in dir (creating it) and remembers which tools an
// earlier process finished or left unfinished.
func Open(dir string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Join(dir, liveDir), 0o700); err != nil {
		return nil, fmt.Errorf("create the state directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	j := &Journal{path: path, dir: dir, unfinished: map[string]string{}, started: map[string]bool{},
		finished: map[string]int64{}, startedAt: map[string]time.Time{}, gone: map[string]bool{}, issued: map[string]string{}}
	if err := j.takeLiveLock(); err != nil {
		return nil, err
	}
	j.sweepLive()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		j.dropLiveLock()
		return nil, fmt.Errorf("open the execution journal %s: %w", path, err)
	}
	j.f = f
	fail := func(err error) (*Journal, error) {
		f.Close()
		j.dropLiveLock()
		return nil, err
	}
	// Locked: the repair of a torn line must not meet another process's start.
	if err := j.lock(); err != nil {
		return fail(err)
	}
	defer j.unlock()
	if err := j.refresh(); err != nil {
		return fail(err)
	}
	if fi, err := f.Stat(); err != nil {
		return fail(fmt.Errorf("read the execution journal %s: %w", path, err))
	} else if fi.Size() > j.read {
		// A crash cut the last line: end it, or the next entry would be
		// glued to it and lost on the next load.
		if _, err := f.Write([]byte("\n")); err != nil {
			return fail(fmt.Errorf("repair the execution journal %s: %w", path, err))
		}
		j.read = fi.Size() + 1
	}
	return j, nil
}

// takeLiveLock creates this process's lock file in live/ and holds it. It
// is locked before it gets its name, so no other process can find it
// unlocked and take this process for dead.
func (j *Journal) takeLiveLock() error {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	j.proc = hex.EncodeToString(b[:])
	dir := filepath.Join(j.dir, liveDir)
	tmp, err := os.CreateTemp(dir, ".new-*")
	if err != nil {
		return fmt.Errorf("create a lock file in %s: %w", dir, err)
	}
	if err := syscall.Flock(int(tmp.Fd()), syscall.LOCK_EX); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("lock %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, j.proc)); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("create a lock file in %s: %w", dir, err)
	}
	j.live = tmp
	return nil
}

// sweepLive removes the lock files of processes that are gone (a crash
// leaves its file behind), so live/ holds about one file per running
// chatls.
func (j *Journal) sweepLive() {
	entries, _ := os.ReadDir(filepath.Join(j.dir, liveDir))
	for _, e := range entries {
		if name := e.Name(); name != j.proc && !strings.HasPrefix(name, ".") {
			j.alive(name) // removes the file of a process that is gone
		}
	}
}

func (j *Journal) dropLiveLock() {
	if j.live != nil {
		os.Remove(filepath.Join(j.dir, liveDir, j.proc))
		j.live.Close()
		j.live = nil
	}
}

// alive says whether the process with token proc still has its journal
// open (its lock file is locked).
func (j *Journal) alive(proc string) bool {
	if proc == "" || j.gone[proc] {
		return false // an older chatls's entry, or a process known gone
	}
	if proc == j.proc {
		return j.live != nil
	}
	path := filepath.Join(j.dir, liveDir, proc)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		if os.IsNotExist(err) {
			j.gone[proc] = true
			return false
		}
		return true // cannot tell: never take a live run for interrupted
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return true
	}
	// Ours now: its process is gone. Tidy up its file.
	os.Remove(path)
	j.gone[proc] = true
	return false
}

func (j *Journal) lock() error {
	if err := syscall.Flock(int(j.f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("lock the execution journal %s: %w", j.path, err)
	}
	return nil
}

func (j *Journal) unlock() { _ = syscall.Flock(int(j.f.Fd()), syscall.LOCK_UN) }

// refresh reads the entries appended since the last read, by any process.
// Only whole lines are taken: a line another process is writing right now
// is read the next time (a torn line at the end is Open's to repair).
func (j *Journal) refresh() error {
	fi, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("read the execution journal %s: %w", j.path, err)
	}
	if fi.Size() <= j.read {
		return nil
	}
	r := bufio.NewReaderSize(io.NewSectionReader(j.f, j.read, fi.Size()-j.read), 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 || line[len(line)-1] != '\n' {
			if err == nil || err == io.EOF {
				return nil
			}
			return fmt.Errorf("read the execution journal %s: %w", j.path, err)
		}
		offset := j.read
		j.read += int64(len(line))
		if e, ok := decodeHead(string(bytes.TrimSpace(line))); ok && e.Proc != j.proc {
			j.apply(e, offset) // this process's own entries were applied as it wrote them
		}
	}
}

// refreshOften refreshes for a question that only reports (State,
// Recorded): at most once per refreshEvery, as a pass over a large
// document asks for every ID. Start always reads the file to its end.
// A failed read keeps what was read before.
func (j *Journal) refreshOften() {
	if now := time.Now(); now.Sub(j.refreshed) >= refreshEvery {
		j.refreshed = now
		_ = j.refresh()
	}
}

// apply takes in an entry written by another process (or an earlier one).
func (j *Journal) apply(e entry, offset int64) {
	k := key(e.Document, e.ToolID)
	switch e.Event {
	case "start":
		if _, done := j.finished[k]; !done {
			j.unfinished[k] = e.Proc
		}
		j.startedAt[k] = e.Time
	case "finish":
		delete(j.unfinished, k)
		j.finished[k] = offset
	case "issue":
		j.issued[k] = e.Hash
	}
}

// State reports what the journal knows about a tool, as the file says now
// (other processes' entries included).
func (j *Journal) State(document, id string) State {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refreshOften()
	return j.state(key(document, id))
}

func (j *Journal) state(k string) State {
	if j.started[k] {
		return Running
	}
	if proc, ok := j.unfinished[k]; ok {
		if j.alive(proc) {
			return RunningElsewhere
		}
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
// when the tool was already started or finished, by this process or
// another (running or gone): the caller must not run it. The check and the
// record are one step for every process sharing the journal: the file is
// locked, read to its end, and the start synced before it is unlocked.
func (j *Journal) Start(document, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.lock(); err != nil {
		return err
	}
	defer j.unlock()
	if err := j.refresh(); err != nil {
		return err // not knowing what others started, nothing may start
	}
	k := key(document, id)
	if j.state(k) != Unknown {
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
	delete(j.unfinished, k)
	j.finished[k] = offset // -1 if the write failed: Recorded then knows no text
	return err
}

// Recorded returns the result recorded for a finished tool.
func (j *Journal) Recorded(document, id string) (Record, bool) {
	j.mu.Lock()
	j.refreshOften()
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

// append writes one entry and returns its offset; sync waits for the disk.
func (j *Journal) append(e entry, sync bool) (int64, error) {
	e.PID = os.Getpid()
	e.Proc = j.proc
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

// Close closes the journal file. This process's unfinished starts count as
// interrupted from now on, for every other process.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.dropLiveLock()
	return j.f.Close()
}

package tools

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/chatls/chatls/internal/clip"
)

// OutputSink collects a command's output with bounded memory: the first
// MaxBytes stay in memory until the limits are exceeded, then everything
// streams to a full-output file under the temp dir while a ring buffer keeps
// the tail that goes into the document. Memory use is O(MaxBytes) whatever the
// command prints.
type OutputSink struct {
	mu     sync.Mutex
	limits Limits
	dir    string
	prefix string

	head  []byte // all output so far, while it still fits the limits
	ring  tailRing
	total int64
	nl    int64 // newline count
	last  byte

	file      *os.File
	fileW     *bufio.Writer
	saved     int64
	savedCut  bool
	fileError error
}

func newOutputSink(limits Limits, dir, prefix string) *OutputSink {
	limits = limits.OrDefault()
	return &OutputSink{
		limits: limits,
		dir:    dir,
		prefix: prefix,
	}
}

// Write never fails: a broken full-output file only loses the file.
func (s *OutputSink) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += int64(len(p))
	s.nl += int64(bytes.Count(p, []byte{'\n'}))
	s.last = p[len(p)-1]
	if s.file == nil && s.fileError == nil {
		if !s.overLimitLocked() {
			s.head = append(s.head, p...)
			return len(p), nil
		}
		// Over the limits: from now on the ring keeps the tail. Allocated
		// only now, as most commands never print this much.
		s.ring.buf = make([]byte, s.limits.MaxBytes)
		s.ring.write(s.head)
		s.openFileLocked()
		s.saveLocked(s.head)
		s.head = nil
	}
	s.ring.write(p)
	s.saveLocked(p)
	return len(p), nil
}

func (s *OutputSink) lineCountLocked() int64 {
	if s.total == 0 {
		return 0
	}
	if s.last == '\n' {
		return s.nl
	}
	return s.nl + 1
}

func (s *OutputSink) overLimitLocked() bool {
	return s.total > int64(s.limits.MaxBytes) || s.lineCountLocked() > int64(s.limits.MaxLines)
}

func (s *OutputSink) openFileLocked() {
	if s.dir == "" {
		s.dir = os.TempDir()
	}
	f, err := os.CreateTemp(s.dir, "chatls-"+safeFileName(s.prefix)+"-*.log")
	if err != nil {
		s.fileError = err
		return
	}
	s.file = f
	s.fileW = bufio.NewWriterSize(f, 64*1024)
}

func (s *OutputSink) saveLocked(p []byte) {
	if s.fileW == nil || s.savedCut {
		return
	}
	if room := s.limits.MaxSavedBytes - s.saved; int64(len(p)) > room {
		p = p[:room]
		s.savedCut = true
	}
	n, err := s.fileW.Write(p)
	s.saved += int64(n)
	if err != nil && s.fileError == nil {
		s.fileError = err
	}
}

// Discard forgets the output written so far, for a command that is run
// again because it never started (SandboxSetup); false when that output
// went to a file already and cannot be taken back.
func (s *OutputSink) Discard() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file != nil || s.fileError != nil {
		return false
	}
	s.head, s.total, s.nl, s.last = s.head[:0], 0, 0, 0
	return true
}

// Sink is the sink a streaming tool writes the call's output to:
// the runner's, so the output read so far is the runner's to keep should
// the tool not return in time after a cancel; a fresh one outside a runner.
func (env Env) Sink(id string) *OutputSink {
	if env.output != nil {
		return env.output
	}
	return newOutputSink(env.Limits, env.TempDir, id)
}

// partial is the output read so far, document-safe, for a tool that did
// not return after its cancel: the tail when it has outgrown the limits.
// The sink stays open (the tool may still write and finish it).
func (s *OutputSink) partial() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw := s.head
	if s.file != nil || s.fileError != nil {
		raw = s.ring.bytes()
	}
	kept, _ := tailLines(string(raw), s.limits.MaxLines, s.limits.MaxBytes)
	return strings.TrimRight(DocumentText(kept), " \t\n")
}

// SoFar is what the call printed so far, document-safe, cut to the
// limits as its result will be; the call goes on.
func (s *OutputSink) SoFar() string { return s.partial() }

// LastLine is the most recent non-empty output line, for progress reports.
func (s *OutputSink) LastLine() string {
	s.mu.Lock()
	tail := s.ring.bytes()
	if s.ring.buf == nil {
		tail = append(tail, s.head...) // still all in memory
	}
	s.mu.Unlock()
	tail = bytes.TrimRight(tail, "\r\n \t")
	if i := bytes.LastIndexAny(tail, "\r\n"); i >= 0 {
		tail = tail[i+1:]
	}
	return DocumentText(clip.Head(string(tail), 200))
}

// SinkResult is what a finished sink contributes to a Result.
type SinkResult struct {
	Text      string // document-safe, trailing whitespace trimmed
	Truncated bool
	FullPath  string
}

// Finish closes the full-output file and renders the kept tail with the
// `[Showing lines A-B of N. Full output: PATH]` note when it was cut.
func (s *OutputSink) Finish() SinkResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.file == nil && s.fileError == nil {
		return SinkResult{Text: strings.TrimRight(DocumentText(string(s.head)), " \t\n")}
	}
	path := ""
	if s.file != nil {
		if err := s.fileW.Flush(); err != nil && s.fileError == nil {
			s.fileError = err
		}
		s.file.Close()
		path = s.file.Name()
	}
	total := s.lineCountLocked()
	raw := s.ring.bytes()
	if s.total > int64(len(raw)) {
		// The ring starts mid-line: drop the partial first line unless it is all we have.
		if i := bytes.IndexByte(raw, '\n'); i >= 0 && i+1 < len(raw) {
			raw = raw[i+1:]
		}
	}
	kept, shown := tailLines(string(raw), s.limits.MaxLines, s.limits.MaxBytes)
	text := strings.TrimRight(DocumentText(kept), " \t\n")
	from := total - int64(shown) + 1
	note := fmt.Sprintf("[Showing lines %d-%d of %d. Full output: %s]", from, total, total, path)
	if path == "" {
		note = fmt.Sprintf("[Showing lines %d-%d of %d. Full output could not be saved: %v]", from, total, total, s.fileError)
	} else if s.savedCut {
		note += fmt.Sprintf("\n[The saved file holds only the first %s of %s.]", FormatSize(s.saved), FormatSize(s.total))
	}
	return SinkResult{Text: text + "\n\n" + note, Truncated: true, FullPath: path}
}

// tailRing keeps the last len(buf) bytes written.
type tailRing struct {
	buf  []byte
	pos  int
	full bool
}

func (r *tailRing) write(p []byte) {
	if len(r.buf) == 0 {
		return
	}
	if len(p) >= len(r.buf) {
		copy(r.buf, p[len(p)-len(r.buf):])
		r.pos, r.full = 0, true
		return
	}
	n := copy(r.buf[r.pos:], p)
	if n < len(p) {
		copy(r.buf, p[n:])
		r.full = true
	}
	r.pos = (r.pos + len(p)) % len(r.buf)
	if r.pos == 0 && len(p) > 0 {
		r.full = true
	}
}

func (r *tailRing) bytes() []byte {
	if !r.full {
		return append([]byte(nil), r.buf[:r.pos]...)
	}
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}

// safeFileName keeps IDs like `toolu_01` or `urn:flemma:tool:read:6a1f` usable in file names.
func safeFileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "output"
	}
	return b.String()
}

// Package stderrlog turns the stderr of a child process (a plugin or an MCP
// server) into zap log lines, one entry per line, and remembers the last line
// so that an error about the process dying can say what it printed last.
package stderrlog

import (
	"bytes"
	"sync"

	"go.uber.org/zap"
)

// maxLine bounds one log entry: a child printing megabytes without a newline
// must not grow our memory.
const maxLine = 4096

// Writer is an io.Writer for exec.Cmd.Stderr.
type Writer struct {
	logger *zap.Logger

	mu       sync.Mutex
	buf      []byte
	lastLine string
}

// New logs each line written to the returned Writer at info level on logger
// (which should already carry the child's name as a field).
func New(logger *zap.Logger) *Writer {
	return &Writer{logger: logger}
}

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.append(p)
			break
		}
		w.append(p[:i])
		w.flushLocked()
		p = p[i+1:]
	}
	return n, nil
}

func (w *Writer) append(p []byte) {
	room := maxLine - len(w.buf)
	if len(p) > room {
		p = p[:room]
	}
	w.buf = append(w.buf, p...)
}

func (w *Writer) flushLocked() {
	line := string(bytes.TrimRight(w.buf, "\r"))
	w.buf = w.buf[:0]
	if line == "" {
		return
	}
	w.lastLine = line
	w.logger.Info("stderr", zap.String("line", line))
}

// Flush logs a final line that had no newline.
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked()
}

// LastLine is the last non-empty line the child wrote to stderr.
func (w *Writer) LastLine() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		return string(w.buf)
	}
	return w.lastLine
}

package stderrlog

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestWriterLogsLinesAndRemembersTheLast(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	w := New(zap.New(core))
	w.Write([]byte("first\r\nsec"))
	w.Write([]byte("ond\n\n"))
	w.Write([]byte(strings.Repeat("x", 3*maxLine) + "\n"))
	w.Write([]byte("no newline"))
	if got := w.LastLine(); got != "no newline" {
		t.Errorf("LastLine = %q, want the unterminated tail", got)
	}
	w.Flush()

	var lines []string
	for _, e := range logs.All() {
		lines = append(lines, e.ContextMap()["line"].(string))
	}
	if len(lines) != 4 || lines[0] != "first" || lines[1] != "second" || len(lines[2]) != maxLine || lines[3] != "no newline" {
		t.Errorf("logged %d lines: %.40q", len(lines), lines)
	}
}

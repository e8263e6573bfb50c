package checkahead

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/internal/mapped"
)

// files writes a conversation check maps (with a finding at its end) and
// a small one, and returns their names and the large one's text.
func files(t *testing.T) (big, small, text string) {
	t.Helper()
	dir := t.TempDir()
	text = chatgen.Generate(2*mapped.Min, 3) + "\n@Assistant:\n**Tool Use:** `read` (`toolu_x`)\n```json\n{\"path\":\n```\n"
	big, small = filepath.Join(dir, "big.chat"), filepath.Join(dir, "small.chat")
	for name, content := range map[string]string{big: text, small: "@You:\nhi\n"} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return big, small, text
}

// begin sets check's collector settings; the test binary gets its own back.
func restoreGC(t *testing.T) {
	t.Cleanup(func() {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}

func TestBeginsOnlyForCheckOfOneMappedFile(t *testing.T) {
	restoreGC(t)
	big, small, _ := files(t)
	for _, args := range [][]string{
		{"chatls"}, {"chatls", "check"}, {"chatls", "check", small}, {"chatls", "check", big, big},
		{"chatls", "parse", big}, {"chatls", "check", filepath.Join(t.TempDir(), "missing.chat")},
		{"chatls", "check", t.TempDir()},
	} {
		if p := begin(args); p != nil {
			<-p.done
			p.file.Close()
			t.Errorf("%q: a parse began", args)
		}
	}
	p := begin([]string{"chatls", "check", big})
	if p == nil {
		t.Fatal("`chatls check BIG`: no parse began")
	}
	<-p.done
	p.file.Close()
}

// Take gives the parse begun for that name, once; check parses anything
// else itself.
func TestTakeGivesTheParseOfItsFileOnce(t *testing.T) {
	restoreGC(t)
	big, small, text := files(t)
	begun = begin([]string{"chatls", "check", big})
	t.Cleanup(func() { begun = nil })
	if _, _, ok := Take(small); ok {
		t.Fatal("took a parse for another file")
	}
	m, doc, ok := Take(big)
	if !ok {
		t.Fatal("no parse to take")
	}
	defer m.Close()
	want := chatdoc.ParseOnce(text)
	if m.Text() != text || doc.Len() != want.Len() || len(doc.Messages()) != len(want.Messages()) ||
		!reflect.DeepEqual(doc.Diagnostics(), want.Diagnostics()) || len(want.Diagnostics()) == 0 {
		t.Fatalf("the parse taken differs from a parse of the file: %d messages, %v; want %d, %v",
			len(doc.Messages()), doc.Diagnostics(), len(want.Messages()), want.Diagnostics())
	}
	if _, _, ok := Take(big); ok {
		t.Fatal("took the same parse twice")
	}
}

// A parse that faults (the file was truncated under it) is not given:
// check then reads and parses the file itself.
func TestAParseOfAChangedFileIsNotGiven(t *testing.T) {
	big, _, _ := files(t)
	m := mapFile(big)
	if m == nil {
		t.Fatal("not mapped")
	}
	if err := os.Truncate(big, int64(len(m.Data)/3)); err != nil {
		t.Fatal(err)
	}
	p := &parse{name: big, file: m, done: make(chan struct{})}
	p.run()
	begun = p
	t.Cleanup(func() { begun = nil })
	if _, _, ok := Take(big); ok || p.doc != nil {
		t.Fatal("the parse of a truncated file was given")
	}
}

// A named pipe is neither opened nor read: opening it would wait for a
// writer and take from check the one opening the writer serves.
func TestANamedPipeIsLeftToCheck(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.chat")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	began := make(chan *parse, 1)
	go func() { began <- begin([]string{"chatls", "check", fifo}) }()
	select {
	case p := <-began:
		if p != nil {
			t.Fatal("a parse began for a named pipe")
		}
	case <-time.After(time.Minute):
		t.Fatal("begin waits on a named pipe")
	}
}

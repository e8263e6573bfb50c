package mapped

import (
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/workers"
)

// mapNew writes size bytes to a new file and maps it.
func mapNew(t *testing.T, size int) (*File, string) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "big.chat")
	if err := os.WriteFile(name, []byte(strings.Repeat("@You:\nhello\n", size/12+1)[:size]), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil || !Mappable(info) {
		t.Fatalf("%s (%d bytes) is not mappable: %v", name, size, err)
	}
	m, err := Map(f, info)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m, name
}

var sinkByte byte

func TestMappableIsARegularFileOfAtLeastMin(t *testing.T) {
	dir := t.TempDir()
	for size, want := range map[int]bool{0: false, Min - 1: false, Min: true} {
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		if info, _ := os.Stat(name); Mappable(info) != want {
			t.Errorf("%d bytes: mappable %v, want %v", size, !want, want)
		}
	}
	if info, _ := os.Stat(dir); Mappable(info) {
		t.Error("a directory is mappable")
	}
}

// The mapping reads as the file, Text without a copy.
func TestTextIsTheFile(t *testing.T) {
	m, name := mapNew(t, 2*Min)
	want, err := os.ReadFile(name)
	if err != nil || m.Text() != string(want) || m.Changed() {
		t.Fatalf("text differs from the file (read error %v), or changed %v", err, m.Changed())
	}
}

// A page lost to a truncation faults; the fault, on the goroutine that
// reads or on a worker it started (internal/workers raises it again in the
// caller), reaches the guard, which says the file changed.
func TestAFaultOnAWorkerReachesTheGuard(t *testing.T) {
	m, name := mapNew(t, 2*Min)
	if err := os.Truncate(name, int64(len(m.Data)/2)); err != nil {
		t.Fatal(err)
	}
	if !m.Changed() {
		t.Fatal("a truncated file is not changed")
	}
	var raised any
	func() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { raised = recover() }()
		workers.Run(func() {}, func() { sinkByte = m.Data[len(m.Data)-1] })
	}()
	if p, ok := raised.(*workers.Panic); !ok || !m.FaultedIn(p) {
		t.Fatalf("raised %T %v, want a worker's fault inside the mapping", raised, raised)
	}
	err := m.Guard(func() { workers.Run(func() {}, func() { sinkByte = m.Data[len(m.Data)-1] }) })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("guard: %v, want %v", err, ErrChanged)
	}
}

// A panic while reading an unchanged file is a bug: it goes on.
func TestGuardRaisesAPanicOfAnUnchangedFile(t *testing.T) {
	m, _ := mapNew(t, Min)
	defer func() {
		if v := recover(); v != "a bug" {
			t.Fatalf("recovered %v, want the panic itself", v)
		}
	}()
	m.Guard(func() { panic("a bug") })
	t.Fatal("guard returned")
}

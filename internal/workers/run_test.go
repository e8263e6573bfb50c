package workers

import (
	"errors"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// raised runs fs with Run and returns what Run panicked with.
func raised(t *testing.T, fs ...func()) (p *Panic) {
	t.Helper()
	defer func() {
		v := recover()
		var ok bool
		if p, ok = v.(*Panic); !ok {
			t.Fatalf("Run panicked with %T %v, want *Panic", v, v)
		}
	}()
	Run(fs...)
	return nil
}

func panicsInAWorker() { panic("boom") }

func TestRunRaisesAWorkersPanicInTheCaller(t *testing.T) {
	p := raised(t, func() {}, panicsInAWorker)
	if p == nil || p.Value != "boom" {
		t.Fatalf("got %+v, want the worker's value", p)
	}
	if !strings.Contains(string(p.Stack), "panicsInAWorker") {
		t.Errorf("the stack does not show where the worker panicked:\n%s", p.Stack)
	}
	if !strings.Contains(p.Error(), "boom") || !strings.Contains(p.Error(), "panicsInAWorker") {
		t.Errorf("Error() = %q, want the value and the stack", p.Error())
	}
}

func TestRunRaisesTheFirstPanicInTheOrderGiven(t *testing.T) {
	release := make(chan struct{})
	p := raised(t,
		func() { <-release; panic("first") },
		func() { defer close(release); panic("second") })
	if p.Value != "first" {
		t.Fatalf("got %v, want the first function's panic", p.Value)
	}
}

func TestRunWaitsForAllBeforeRaisingTheCallersPanic(t *testing.T) {
	release := make(chan struct{})
	var workerEnded atomic.Bool
	raised(t,
		func() { close(release); panic("caller") },
		func() { <-release; workerEnded.Store(true) })
	if !workerEnded.Load() {
		t.Fatal("Run raised the caller's panic while a worker still ran")
	}
}

func TestRunWithoutPanicsReturnsAfterAll(t *testing.T) {
	var ran [4]atomic.Bool
	fs := make([]func(), len(ran))
	for i := range fs {
		fs[i] = func() { ran[i].Store(true) }
	}
	Run(fs...)
	for i := range ran {
		if !ran[i].Load() {
			t.Errorf("function %d did not run", i)
		}
	}
	Run() // nothing to do
}

func TestNestedRunKeepsTheInnermostStack(t *testing.T) {
	p := raised(t, func() {}, func() { Run(func() {}, panicsInAWorker) })
	if p.Value != "boom" || !strings.Contains(string(p.Stack), "panicsInAWorker") {
		t.Fatalf("got %v with stack\n%s", p.Value, p.Stack)
	}
}

// TestWorkersFaultAsTheCallerChose reads memory that may not be read, on a
// worker of a caller that asked for a panic instead of a crash: the caller
// recovers a runtime error that says where.
func TestWorkersFaultAsTheCallerChose(t *testing.T) {
	page, err := unix.Mmap(-1, 0, unix.Getpagesize(), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(page)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var sink byte
	p := raised(t, func() {}, func() { sink = *(*byte)(unsafe.Pointer(&page[0])) })
	var fault interface{ Addr() uintptr }
	if !errors.As(p, &fault) {
		t.Fatalf("got %v, want a runtime error with the fault's address", p.Value)
	}
	if fault.Addr() != uintptr(unsafe.Pointer(&page[0])) {
		t.Errorf("fault at %#x, want %p", fault.Addr(), &page[0])
	}
	_ = sink
	if !debug.SetPanicOnFault(true) {
		t.Error("the caller's setting was changed")
	}
}

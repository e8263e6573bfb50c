package main

import (
	"errors"
	"os"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"
)

// mapMin is the size from which `chatls check` maps a file instead of
// reading it: reading 10 MB is mostly the kernel filling fresh pages of
// the copy, a mapping shares the page cache's (reading instead made the
// check of the 10 MB document a third slower: docs/performance.md,
// "Retirements").
const mapMin = 1 << 20

// errChanged is a mapped file that shrank or was rewritten while it was
// checked: the check is then done again on a copy read afresh.
var errChanged = errors.New("the file changed while it was checked")

// mappedText is a file's contents as a read-only shared mapping, with what
// tells whether the file changed since it was mapped.
type mappedText struct {
	data []byte
	file *os.File
	size int64
	mod  time.Time
}

// openText opens a file for check: a regular file of at least mapMin
// bytes mapped, any other read (opened once: a pipe can be opened only
// once).
func openText(name string) (m *mappedText, text []byte, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if info.Mode().IsRegular() && info.Size() >= mapMin && int64(int(info.Size())) == info.Size() {
		data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
		if err == nil { // else a file system that cannot map: read it
			return &mappedText{data: data, file: f, size: info.Size(), mod: info.ModTime()}, nil, nil
		}
	}
	defer f.Close()
	text, err = readOpen(f, info)
	return nil, text, err
}

func (m *mappedText) close() {
	syscall.Munmap(m.data)
	m.file.Close()
}

// changed tells whether the file's size or modification time moved since
// it was mapped (or it can no longer be asked).
func (m *mappedText) changed() bool {
	info, err := m.file.Stat()
	return err != nil || info.Size() != m.size || !info.ModTime().Equal(m.mod)
}

// guard calls f, which reads the mapping. A file truncated under it makes
// reading its lost pages fault (SIGBUS), which would end the process; here
// it panics instead (debug.SetPanicOnFault, inherited by internal/workers)
// and guard returns errChanged, as for any panic once the file changed
// (the parse may trip over bytes rewritten under it). Any other panic is
// a bug and goes on.
func (m *mappedText) guard(f func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if m.faultedIn(v) || m.changed() {
			err = errChanged
			return
		}
		panic(v)
	}()
	f()
	return nil
}

// faultedIn tells whether v is a memory fault inside the mapping.
func (m *mappedText) faultedIn(v any) bool {
	err, ok := v.(error)
	var fault interface{ Addr() uintptr }
	if !ok || !errors.As(err, &fault) {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	return fault.Addr() >= start && fault.Addr()-start < uintptr(len(m.data))
}

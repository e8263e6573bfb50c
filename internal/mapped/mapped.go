// Package mapped reads a large file for `chatls check` through a
// read-only shared mapping of it, and keeps a file truncated under the
// mapping (an editor saving in place) from ending the process.
package mapped

import (
	"errors"
	"os"
	"runtime/debug"
	"syscall"
	"time"
	"unsafe"
)

// Min is the size from which `chatls check` maps a file instead of
// reading it: reading 10 MB is mostly the kernel filling fresh pages of
// the copy (~3 ms), a mapping shares the page cache's.
const Min = 1 << 20

// ErrChanged is a mapped file that shrank or was rewritten while it was
// read: the caller reads it again into a copy.
var ErrChanged = errors.New("the file changed while it was checked")

// File is a file's contents as a read-only shared mapping, with what tells
// whether the file changed since it was mapped.
type File struct {
	Data []byte
	file *os.File
	size int64
	mod  time.Time
}

// Mappable tells whether the file with this info is one to map: regular,
// of at least Min bytes, and addressable.
func Mappable(info os.FileInfo) bool {
	return info.Mode().IsRegular() && info.Size() >= Min && int64(int(info.Size())) == info.Size()
}

// Map maps the open file f, whose info the caller has (Mappable). On
// success the File owns f; on an error (a file system that cannot map)
// the caller still does.
func Map(f *os.File, info os.FileInfo) (*File, error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &File{Data: data, file: f, size: info.Size(), mod: info.ModTime()}, nil
}

// Text is the mapping as a string, without a copy. Like Data, it must not
// be used once the file is closed.
func (m *File) Text() string { return unsafe.String(unsafe.SliceData(m.Data), len(m.Data)) }

// Close unmaps the file and closes it.
func (m *File) Close() {
	syscall.Munmap(m.Data)
	m.file.Close()
}

// Changed tells whether the file's size or modification time moved since
// it was mapped (or it can no longer be asked).
func (m *File) Changed() bool {
	info, err := m.file.Stat()
	return err != nil || info.Size() != m.size || !info.ModTime().Equal(m.mod)
}

// Guard calls f, which reads the mapping. A file truncated under it makes
// reading its lost pages fault (SIGBUS), which would end the process; here
// it panics instead (debug.SetPanicOnFault, inherited by internal/workers)
// and Guard returns ErrChanged, as for any panic once the file changed
// (the parse may trip over bytes rewritten under it). Any other panic is
// a bug and goes on.
func (m *File) Guard(f func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if m.FaultedIn(v) || m.Changed() {
			err = ErrChanged
			return
		}
		panic(v)
	}()
	f()
	return nil
}

// FaultedIn tells whether v, a recovered panic, is a memory fault inside
// the mapping.
func (m *File) FaultedIn(v any) bool {
	err, ok := v.(error)
	var fault interface{ Addr() uintptr }
	if !ok || !errors.As(err, &fault) {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m.Data)))
	return fault.Addr() >= start && fault.Addr()-start < uintptr(len(m.Data))
}

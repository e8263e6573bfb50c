// Package docfile is a document file as the terminal writes it (SPEC §7
// "The terminal is a full client"): the file is the user's, so it is
// written atomically — a temporary file in the same directory, flushed,
// renamed over it with its mode kept — and one chatls at a time sends it,
// under a lock the kernel drops when the process dies, kill -9 included.
package docfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Lock is a held send lock of one document.
type Lock struct{ f *os.File }

// ErrBusy is returned by Acquire when another process sends the document.
type ErrBusy struct {
	Path string
	PID  int // 0 when unknown
}

func (e *ErrBusy) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is being sent by another chatls (pid %d)", e.Path, e.PID)
	}
	return e.Path + " is being sent by another chatls"
}

// Acquire takes the send lock of the document at path (absolute, symlinks
// resolved by the caller) in dir, chatls's state directory: at once, or
// ErrBusy naming the holder. The lock file lives in the state directory,
// not beside the document, so no stray file appears in the user's tree.
func Acquire(dir, path string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(path))
	name := filepath.Join(dir, hex.EncodeToString(sum[:12])+".lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		data, _ := os.ReadFile(name)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			return nil, &ErrBusy{Path: path, PID: pid}
		}
		return nil, err
	}
	// The holder's pid, for the message the next sender prints.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Release drops the lock.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
		l.f = nil
	}
}

// CheckWritable says whether Write can replace the file at path: the file
// and its directory are writable (a temporary file is created and removed).
// The terminal checks before the request goes out, so a read-only file or
// directory fails before the model is paid for an answer nobody can keep.
func CheckWritable(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s cannot be written: %w", path, errors.Unwrap(err))
	}
	f.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".chatls-*")
	if err != nil {
		return fmt.Errorf("%s cannot be replaced: its directory is not writable (%v)", path, errors.Unwrap(err))
	}
	name := tmp.Name()
	tmp.Close()
	return os.Remove(name)
}

// Write replaces the file at path with data atomically: the old content or
// the new one, never a torn or empty file, whatever stops the process or
// fills the disk. The mode is kept.
func Write(path string, data []byte) error {
	_, err := WriteUnlessChanged(path, data, nil)
	return err
}

// ErrChangedMeanwhile is WriteUnlessChanged's error when another program
// changed the file while the new content was being made ready: nothing was
// written, and the caller takes that change in and writes again.
var ErrChangedMeanwhile = errors.New("the file changed while it was being written")

// WriteUnlessChanged is Write that asks changed (nil: never) right before
// the rename whether another program has changed the file since the caller
// last looked. The temporary file's flush can take long on a busy machine;
// without this look an edit made meanwhile would be renamed over and lost.
// It returns what it wrote as the file system describes it, taken before
// the rename: a stat after it could already describe another program's
// write, which would then never be noticed.
func WriteUnlessChanged(path string, data []byte, changed func() bool) (written os.FileInfo, err error) {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".chatls-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if err == nil {
		written, err = tmp.Stat() // the inode and mtime FILE will have
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w (the file is unchanged)", path, err)
	}
	if changed != nil && changed() {
		return nil, ErrChangedMeanwhile // the window left is this look to the rename: microseconds, not a flush
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return nil, err
	}
	return written, nil
}

// SiblingName is the path of the next NAME.KIND-N.chat beside the document
// at docPath (an archive, a branch): NAME the document's name without
// `.chat`, N the first from 1 that exists says is free. The caller creates
// it exclusively (O_EXCL) and asks again when another process took the
// name meanwhile. An unsaved document ("") gets "untitled".
func SiblingName(docPath, kind string, exists func(path string) bool) string {
	dir, base := filepath.Split(docPath)
	name := strings.TrimSuffix(base, ".chat")
	if name == "" {
		name = "untitled"
	}
	for n := 1; ; n++ {
		p := filepath.Join(dir, fmt.Sprintf("%s.%s-%d.chat", name, kind, n))
		if !exists(p) {
			return p
		}
	}
}

package tools

import (
	"io/fs"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// dirWatch tells a cached scan (sandbox_mask.go) that a directory it read
// has had an entry created, removed or renamed since, from inotify events:
// checking a warm scan is then one read, not an lstat per directory (337
// directories in a real home took 1.8 ms per bash call, docs/performance.md).
// The kernel queues an event before the call that caused it returns, so a
// change made before the check is seen, like a changed directory time.
//
// Inotify is blind to some changes a directory time shows, so those
// directories keep the lstat check: those on a file system where another
// machine may write (only local types are watched), and those past the
// watch budget. A mount made over a directory since the scan makes no event
// either; the mount table is polled for that.
type dirWatch struct {
	mu     sync.Mutex
	fd     int      // inotify, non-blocking; -1 once closed
	mounts *os.File // polls POLLPRI once the mount table changed after open
	n      int
	dirty  bool            // a change was seen: reading it consumed it, so remember
	local  map[uint64]bool // device → its file system is a watchable type
}

// watchBudget bounds the watches and inotify instances all scans hold
// together: both are per-user limits that editors' file watchers need too
// (max_user_instances is often 128).
var watchBudget = struct {
	sync.Mutex
	watches, instances int
}{}

const (
	maxWatches   = 8192
	maxInstances = 8
	watchEvents  = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
)

// newDirWatch is nil when no inotify instance can be had; the scan then
// checks every directory's time, as without it.
func newDirWatch() *dirWatch {
	watchBudget.Lock()
	defer watchBudget.Unlock()
	if watchBudget.instances >= maxInstances {
		return nil
	}
	mounts, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		mounts.Close()
		return nil
	}
	watchBudget.instances++
	return &dirWatch{fd: fd, mounts: mounts, local: map[uint64]bool{}}
}

// add watches dir, before the scan reads it; false when it is not watched
// and its time must be checked instead.
func (w *dirWatch) add(dir string, fi fs.FileInfo) bool {
	if w == nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return false
	}
	dev := uint64(st.Dev)
	local, known := w.local[dev]
	if !known {
		local = localFS(dir)
		w.local[dev] = local
	}
	if !local {
		return false
	}
	watchBudget.Lock()
	defer watchBudget.Unlock()
	if watchBudget.watches >= maxWatches {
		return false
	}
	if _, err := unix.InotifyAddWatch(w.fd, dir, watchEvents); err != nil {
		return false
	}
	watchBudget.watches++
	w.n++
	return true
}

// changed reports whether any watched directory changed or a mount came or
// went since the scan; a closed or failing watch counts as changed.
func (w *dirWatch) changed() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 || w.dirty {
		return true
	}
	w.dirty = w.eventQueued() || w.mountsChanged()
	return w.dirty
}

func (w *dirWatch) eventQueued() bool {
	var b [unix.SizeofInotifyEvent + unix.NAME_MAX + 1]byte
	_, err := unix.Read(w.fd, b[:])
	return err != unix.EAGAIN // an event (overflow included), or an error
}

func (w *dirWatch) mountsChanged() bool {
	rc, err := w.mounts.SyscallConn()
	if err != nil {
		return true
	}
	changed := true
	rc.Control(func(fd uintptr) {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLPRI}}
		n, err := unix.Poll(p, 0)
		changed = err != nil || (n > 0 && p[0].Revents&(unix.POLLPRI|unix.POLLERR) != 0)
	})
	return changed
}

// close gives the watches and the instance back; safe more than once.
func (w *dirWatch) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return
	}
	unix.Close(w.fd)
	w.mounts.Close()
	w.fd = -1
	watchBudget.Lock()
	watchBudget.watches -= w.n
	watchBudget.instances--
	watchBudget.Unlock()
}

// localFS reports whether dir's file system is one only this machine writes,
// so that inotify sees every change to it (not NFS, FUSE, SMB, …).
func localFS(dir string) bool {
	var sfs unix.Statfs_t
	if unix.Statfs(dir, &sfs) != nil {
		return false
	}
	switch int64(sfs.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC:
		return true
	}
	return false
}

package rewind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockTimeout is how long a checkpoint waits for another chatls process
// working on the same workspace (or collecting the store) before it gives up.
const lockTimeout = 30 * time.Second

// flock takes an flock on path (created if needed): exclusive, or shared
// when shared is set. It polls with LOCK_NB so that it honours ctx and
// lockTimeout; the kernel releases the lock if the process dies, so a
// crashed chatls never leaves a workspace locked.
func flock(ctx context.Context, path string, shared bool) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("rewind: cannot open lock file: %w", err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	deadline := time.Now().Add(lockTimeout)
	wait := time.Millisecond
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("rewind: cannot lock %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("rewind: %s is held by another chatls process for more than %s; "+
				"wait for it to finish, or stop the process that holds it", path, lockTimeout)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("rewind: waiting for %s: %w", path, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

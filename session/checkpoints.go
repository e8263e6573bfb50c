package session

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/internal/fspath"
	"github.com/chatls/chatls/rewind"
	"github.com/chatls/chatls/tools"
)

// checkpointTimeout bounds one checkpoint: a store that hangs (a lock held
// by a stuck process) must not hold an approved call forever.
const checkpointTimeout = 2 * time.Minute

// checkpointStore is the rewind store, opened on the first call that needs
// it (most sessions never run one, and opening costs a git process).
func (s *Session) checkpointStore() (*rewind.Store, error) {
	s.rewindOnce.Do(func() {
		// Beside the journal: $XDG_STATE_HOME/chatls/checkpoints (SPEC §10).
		dir := filepath.Join(s.stateDir(), "checkpoints")
		eff := s.settings.effectiveFor("")
		s.rewindStore, s.rewindErr = rewind.Open(dir, rewind.Options{MaxFileSize: eff.Rewind.MaxFileSize, KeepDays: eff.Rewind.KeepDays})
		if s.rewindErr == nil {
			s.tasks.Add(1)
			go func() {
				defer s.tasks.Done()
				if err := s.rewindStore.Collect(s.baseCtx); err != nil {
					s.log.Warn("collecting old checkpoints failed", zap.Error(err))
				}
			}()
		}
	})
	return s.rewindStore, s.rewindErr
}

// checkpoint records what the call may change before it runs (SPEC §10)
// and returns what records the state after it. A call that changes no
// file, a remote target, an unsaved buffer or rewind.enabled = false take
// none. A checkpoint that fails does not stop a call the user approved:
// the user is told that this one cannot be taken back.
func (s *Session) checkpoint(ds *Doc, call tools.Call, env tools.Env) (after func()) {
	return s.checkpointBuffers(ds, call, env, nil, nil)
}

// checkpointBuffers is checkpoint for a call that changes files in the
// editor's buffers: the named files open there are recorded as before
// holds them ahead of the call and as after holds them once it ran
// (rewind.Scope.Buffers; nil: on disk).
func (s *Session) checkpointBuffers(ds *Doc, call tools.Call, env tools.Env, before, after rewind.Buffers) func() {
	nothing := func() {}
	if ds.path == "" || !s.settings.effectiveFor(ds.path).Rewind.Enabled {
		return nothing
	}
	touches := s.registry.Touches(call, env)
	if touches.None() {
		return nothing
	}
	root := env.WorkspaceRoot
	if root == "" {
		root = env.Dir
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real // the touched paths are canonical
	}
	sc := rewind.Scope{Root: root, Doc: ds.path, ID: call.ID}
	if touches.Workspace && tooWideToRecord(root) {
		// A document outside any project (in ~ or /) has no workspace
		// worth hashing whole before every bash call: the first would
		// read the whole home directory.
		s.showMessage(MessageInfo, "chatls: no checkpoint before "+call.Name+" ("+call.ID+"): its workspace is "+root+"; open the project folder as the workspace to be able to rewind it")
		return nothing
	}
	if !touches.Workspace {
		for _, p := range touches.Paths {
			// A path outside the workspace (the temp dir, sandbox.writable)
			// is not the workspace's to take back.
			if fspath.Within(p, root) {
				sc.Paths = append(sc.Paths, p)
			}
		}
		if len(sc.Paths) == 0 {
			return nothing
		}
	}
	store, err := s.checkpointStore()
	if err == nil {
		ctx, cancel := context.WithTimeout(s.baseCtx, checkpointTimeout)
		sc.Buffers = before
		_, err = store.Checkpoint(ctx, sc)
		cancel()
	}
	if err != nil {
		s.log.Warn("checkpoint failed", zap.String("id", call.ID), zap.Error(err))
		s.showMessage(MessageWarning, "chatls: no checkpoint before "+call.Name+" ("+call.ID+"): "+err.Error()+"; it runs, but a rewind cannot take it back")
		return nothing
	}
	return func() {
		// The session's context may be ending (shutdown): the next Plan
		// closes a call without its after-state from the disk.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.baseCtx), checkpointTimeout)
		defer cancel()
		sc.Buffers = after
		if err := store.After(ctx, sc); err != nil {
			s.log.Warn("checkpoint after the call failed", zap.String("id", call.ID), zap.Error(err))
		}
	}
}

// tooWideToRecord says a root is the home directory or the file system's
// root (or above the home directory).
func tooWideToRecord(root string) bool {
	home, err := os.UserHomeDir()
	if real, rerr := filepath.EvalSymlinks(home); rerr == nil {
		home = real
	}
	return root == "/" || err == nil && fspath.Within(home, root)
}

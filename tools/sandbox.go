package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/internal/keyenv"
)

var keyenvStrip = keyenv.Strip

// defaultBwrap is looked up on PATH when sandbox.bwrap is empty.
const defaultBwrap = "bwrap"

var sandboxProbes sync.Map // bwrap path → error (nil when it works)

// SandboxAvailable reports whether bubblewrap at bwrapPath ("" = "bwrap" on
// PATH) can start a sandbox here with the namespaces chatls uses. The probe
// runs once per path (ProbeSandbox repeats it); the server says "bubblewrap
// missing" once and then asks for every bash call instead of running it
// unsandboxed.
func SandboxAvailable(bwrapPath string) error {
	if bwrapPath == "" {
		bwrapPath = defaultBwrap
	}
	if v, ok := sandboxProbes.Load(bwrapPath); ok {
		err, _ := v.(error)
		return err
	}
	err := probeSandbox(bwrapPath)
	v, _ := sandboxProbes.LoadOrStore(bwrapPath, err)
	err, _ = v.(error)
	return err
}

// ProbeSandbox probes bubblewrap at bwrapPath afresh, remembers the answer
// for SandboxAvailable (and so for bash), and returns it. The server calls it
// when the sandbox gets enabled or sandbox.bwrap changes after initialize,
// so that a sandbox turned on later is checked (and its failure announced)
// like one on from the start, and an install of bubblewrap since is noticed.
func ProbeSandbox(bwrapPath string) error {
	if bwrapPath == "" {
		bwrapPath = defaultBwrap
	}
	err := probeSandbox(bwrapPath)
	sandboxProbes.Store(bwrapPath, err)
	return err
}

func probeSandbox(bwrapPath string) error {
	path, err := exec.LookPath(bwrapPath)
	if err != nil {
		return fmt.Errorf("bubblewrap not found (%s): install bubblewrap or set sandbox.bwrap", bwrapPath)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	run := func(status bool) (string, error) {
		args := bwrapArgs(Env{}, "/", nil, sandboxView{}, false)
		if status {
			args = withStatusFD(args, "1") // its stdout, discarded
		}
		cmd := exec.CommandContext(ctx, path, append(args, "true")...)
		cmd.Env = sandboxEnviron(Env{}, os.Environ())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		return strings.TrimSpace(stderr.String()), err
	}
	msg, err := run(true)
	// bubblewrap before 0.4 has no --json-status-fd: it sandboxes as well,
	// only a failed set-up is then not tried again (SandboxSetup).
	withStatus := err == nil || !strings.Contains(msg, "--json-status-fd")
	if !withStatus {
		msg, err = run(false)
	}
	if err != nil {
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("bubblewrap cannot start a sandbox here: %s", msg)
	}
	sandboxStatus.Store(bwrapPath, withStatus)
	return nil
}

// sandboxStatus remembers, per bwrap path that probed well, whether it
// takes --json-status-fd.
var sandboxStatus sync.Map // bwrap path → bool

// takesStatusFD says whether bubblewrap at bwrapPath reports its set-up.
func takesStatusFD(bwrapPath string) bool {
	v, _ := sandboxStatus.Load(bwrapPath)
	ok, _ := v.(bool)
	return ok
}

// bwrapArgs builds the bubblewrap command line up to (excluding) the command
// (SPEC §5): the whole file system read-only, the writable set bound
// read-write, then every .git of it read-only again and each sensitive path
// masked (sandboxView), fresh /dev and /proc of a new PID namespace, private
// ipc/uts, no network unless allowed, and the sandbox dies with chatls.
// --new-session stops TIOCSTI injection into a terminal. The environment is
// not here: bubblewrap itself is started with sandboxEnviron, so /proc/1
// inside shows nothing else.
func bwrapArgs(env Env, dir string, writable []string, view sandboxView, network bool) []string {
	args := make([]string, 0, 16+3*(len(writable)+len(view.readOnly)+len(view.maskFiles))+5*len(view.maskDirs))
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, w := range writable {
		if fi, err := os.Stat(w); err != nil || !fi.IsDir() {
			continue // bwrap refuses to bind what does not exist
		}
		args = append(args, "--bind", w, w)
	}
	for _, g := range view.readOnly {
		// -try: a .git removed since the scan (a test's temporary
		// repository, a checkout deleted) has nothing left to protect,
		// and a plain bind of it would fail the whole call.
		args = append(args, "--ro-bind-try", g, g)
	}
	empty := emptyFile()
	for _, f := range view.maskFiles {
		// A mask's destination that is gone would be created on the host
		// by bubblewrap (an empty file or directory left behind), or fail
		// the call when its directory is gone too: nothing there to hide.
		if !stillThere(f) {
			continue
		}
		args = append(args, "--ro-bind", empty, f)
	}
	for _, d := range view.maskDirs {
		if !stillThere(d) {
			continue
		}
		args = append(args, "--tmpfs", d, "--remount-ro", d)
	}
	args = append(args, "--unshare-pid", "--unshare-ipc", "--unshare-uts")
	if os.Geteuid() == 0 {
		// bubblewrap started by root keeps its capabilities otherwise:
		// the command could unmount a mask.
		args = append(args, "--cap-drop", "ALL")
	}
	if !network {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--die-with-parent", "--new-session", "--chdir", dir, "--")
	return args
}

// emptyFile is the empty file bound read-only over each masked file: a
// regular file in chatls's state directory, which the sandbox masks
// itself, so no command inside can fill it. (/dev/null would do, but the
// binds are nodev: reading it there is "Permission denied", and git stops
// at an unreadable ~/.gitconfig.)
var emptyFile = sync.OnceValue(func() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(dir) {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".local", "state")
	}
	return makeEmptyFile(filepath.Join(dir, "chatls", "sandbox"))
})

// makeEmptyFile is dir/empty, made when missing; "/dev/null" when it
// cannot be (unreadable inside, but still no secret).
func makeEmptyFile(dir string) string {
	p := filepath.Join(dir, "empty")
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		return p
	}
	// Made beside and renamed into place, never removed first: another
	// chatls starting at the same moment may be binding the one there (a
	// remove then create let its bwrap find nothing: "Can't bind mount").
	if os.MkdirAll(dir, 0o700) == nil {
		if f, err := os.CreateTemp(dir, ".empty-*"); err == nil {
			f.Close()
			if os.Chmod(f.Name(), 0o444) == nil && os.Rename(f.Name(), p) == nil {
				return p
			}
			os.Remove(f.Name())
		}
	}
	return "/dev/null"
}

// sandboxAllowed are the variables a sandboxed command gets from chatls's
// environment (SPEC §5), besides LC_* and sandbox.env.
var sandboxAllowed = []string{"PATH", "HOME", "USER", "LANG", "TERM", "TZ", "TMPDIR", "SHELL", "FLEMMA_TOOLS_STORE_PATH"}

// sandboxEnviron is the environment bubblewrap is started with, and so the
// only one inside: the allowlist, sandbox.env, and PAGER=cat. Provider keys
// stay out even when sandbox.env names them.
func sandboxEnviron(env Env, from []string) []string {
	out := make([]string, 0, len(sandboxAllowed)+4)
	for _, kv := range keyenvStrip(from) {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "PAGER" {
			continue
		}
		if slices.Contains(sandboxAllowed, name) || strings.HasPrefix(name, "LC_") || slices.Contains(env.Sandbox.Env, name) {
			out = append(out, kv)
		}
	}
	return append(out, "PAGER=cat")
}

// stillThere says whether p still exists (as itself, links not followed):
// the scan behind a sandbox view may be seconds old, and the writable set
// changes under it.
func stillThere(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

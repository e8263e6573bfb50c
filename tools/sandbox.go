package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

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
	args := append(bwrapArgs(Env{}, "/", nil), "true")
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("bubblewrap cannot start a sandbox here: %s", msg)
	}
	return nil
}

// bwrapArgs builds the bubblewrap command line up to (excluding) the command:
// the whole file system read-only, the writable set bound read-write (so
// /tmp stays writable when it is in the set), fresh /dev and /proc, private
// pid/ipc/uts namespaces, no network unless sandbox.network, and the sandbox
// dies with chatls. --new-session stops TIOCSTI injection into a terminal.
func bwrapArgs(env Env, dir string, writable []string) []string {
	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	for _, w := range writable {
		if fi, err := os.Stat(w); err != nil || !fi.IsDir() {
			continue // bwrap refuses to bind what does not exist
		}
		args = append(args, "--bind", w, w)
	}
	args = append(args, "--unshare-pid", "--unshare-ipc", "--unshare-uts")
	if !env.Sandbox.Network {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--die-with-parent", "--new-session", "--chdir", dir, "--")
	return args
}

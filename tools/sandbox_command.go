package tools

import (
	"os"
	"os/exec"

	"github.com/chatls/chatls/internal/keyenv"
)

// bwrapPath is the bubblewrap of sandbox.bwrap, else "bwrap" on PATH.
func bwrapPath(env Env) string {
	if env.Sandbox.Bwrap == "" {
		return defaultBwrap
	}
	return env.Sandbox.Bwrap
}

// Sandboxed says whether a call with env runs inside bubblewrap.
func (env Env) Sandboxed() bool { return env.Sandbox.Enabled && !env.Sandbox.Outside }

// SandboxCommand is the process that runs argv in dir for a call with env
// (bash's): inside bubblewrap with the cleared environment, or, outside the
// sandbox, with chatls's environment less the provider keys. Pagers are cat
// and git never prompts, so nothing waits for a user.
func SandboxCommand(env Env, dir string, argv ...string) (*exec.Cmd, error) {
	if !env.Sandboxed() {
		if env.Sandbox.Enabled && env.Sandbox.Outside && !env.Sandbox.Network && SandboxAvailable(env.Sandbox.Bwrap) == nil {
			// sandbox=off without network=on: the host's files and
			// environment, the network still off.
			argv = append([]string{bwrapPath(env), "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", "--chdir", dir, "--"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(keyenv.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
		return cmd, nil
	}
	if err := SandboxAvailable(env.Sandbox.Bwrap); err != nil {
		return nil, err
	}
	bwrap := bwrapPath(env)
	writable := writableDirs(env)
	home, _ := os.UserHomeDir()
	emptyFile() // made before the scan, so the scan masks the directory holding it
	view := planSandboxView(writable, home)
	args := bwrapArgs(env, dir, writable, view, env.Sandbox.Network)
	cmd := exec.Command(bwrap, append(args, argv...)...)
	cmd.Dir = dir
	cmd.Env = sandboxEnviron(env, os.Environ())
	return cmd, nil
}

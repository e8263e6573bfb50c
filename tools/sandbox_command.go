package tools

import (
	"os"
	"os/exec"
	"slices"
	"strings"

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
// and git never prompts, so nothing waits for a user. Inside bubblewrap,
// setup says afterwards whether the sandbox was set up (SandboxSetup); it
// is nil outside.
func SandboxCommand(env Env, dir string, argv ...string) (cmd *exec.Cmd, setup *SandboxSetup, err error) {
	if !env.Sandboxed() {
		if env.Sandbox.Enabled && env.Sandbox.Outside && !env.Sandbox.Network && SandboxAvailable(env.Sandbox.Bwrap) == nil {
			// sandbox=off without network=on: the host's files and
			// environment, the network still off.
			argv = append([]string{bwrapPath(env), "--dev-bind", "/", "/", "--unshare-net", "--die-with-parent", "--chdir", dir, "--"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = withStorePath(append(keyenv.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"), env)
		return cmd, nil, nil
	}
	if err := SandboxAvailable(env.Sandbox.Bwrap); err != nil {
		return nil, nil, err
	}
	bwrap := bwrapPath(env)
	writable := writableDirs(env)
	home, _ := os.UserHomeDir()
	emptyFile() // made before the scan, so the scan masks the directory holding it
	view, err := planSandboxView(writable, home).fit(append(slices.Clone(writable), dir, home))
	if err != nil {
		return nil, nil, err
	}
	args := bwrapArgs(env, dir, writable, view, env.Sandbox.Network)
	if takesStatusFD(bwrap) { // not an old bubblewrap (probeSandbox)
		setup = newSandboxSetup()
	}
	if setup != nil {
		args = withStatusFD(args, statusFD)
	}
	cmd, err = bwrapCommand(bwrap, args, argv)
	if err != nil {
		setup.Close()
		return nil, nil, err
	}
	if setup != nil {
		cmd.ExtraFiles = []*os.File{setup.w}
	}
	cmd.Dir = dir
	cmd.Env = withStorePath(sandboxEnviron(env, os.Environ()), env)
	return cmd, setup, nil
}

// withStorePath gives the command the document's result store as
// $FLEMMA_TOOLS_STORE_PATH, in place of any the environment had.
func withStorePath(environ []string, env Env) []string {
	if env.StorePath == "" {
		return environ
	}
	environ = slices.DeleteFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, "FLEMMA_TOOLS_STORE_PATH=") })
	return append(environ, "FLEMMA_TOOLS_STORE_PATH="+env.StorePath)
}

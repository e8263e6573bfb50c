package rewind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitTimeout bounds one git command when the caller's context has no
// deadline: a wedged git (a full disk, a hung NFS mount) must not hang a
// tool call forever.
const gitTimeout = 2 * time.Minute

// gitEnv is the whole environment of a store's git: nothing of the user's
// (global config, system config, templates, hooks, GIT_* variables of the
// editor's shell) may reach it, and the user's own repository is never
// discovered because GIT_DIR and GIT_WORK_TREE are always set.
type gitEnv struct {
	gitDir   string // the store
	workTree string // the workspace root; "" for commands that need none
	index    string // the private index; "" for commands that need none
	excludes string // core.excludesFile: the user's info/exclude, or /dev/null
	date     time.Time
}

// settings are passed with -c on every command, so they hold whatever the
// store's own config file says.
var settings = []string{
	"core.autocrlf=false",
	"core.symlinks=true",
	"core.fileMode=true",
	"core.ignoreCase=false",
	"core.quotePath=false",
	"core.hooksPath=/dev/null",
	"core.fsmonitor=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"user.name=chatls",
	"user.email=chatls@localhost",
	"init.defaultBranch=chatls",
	"safe.directory=*",
}

func (e gitEnv) environ() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + e.gitDir, // nothing under the user's home is read
		"LC_ALL=C",
		"GIT_DIR=" + e.gitDir,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_LITERAL_PATHSPECS=1", // a file named "*.go" is that file, not a glob
		"GIT_OPTIONAL_LOCKS=0",
	}
	if e.workTree != "" {
		env = append(env, "GIT_WORK_TREE="+e.workTree)
	}
	if e.index != "" {
		env = append(env, "GIT_INDEX_FILE="+e.index)
	}
	if !e.date.IsZero() {
		d := fmt.Sprintf("%d +0000", e.date.Unix())
		env = append(env, "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	}
	return env
}

func (e gitEnv) args(args []string) []string {
	all := make([]string, 0, 2*len(settings)+len(args)+2)
	for _, s := range settings {
		all = append(all, "-c", s)
	}
	excludes := e.excludes
	if excludes == "" {
		excludes = os.DevNull
	}
	all = append(all, "-c", "core.excludesFile="+excludes)
	return append(all, args...)
}

// run runs git with stdin and returns its stdout; a failure carries git's
// stderr, which says what went wrong better than an exit code.
func (e gitEnv) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, gitTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "git", e.args(args)...)
	cmd.Env = e.environ()
	cmd.Dir = e.gitDir
	if e.workTree != "" {
		cmd.Dir = e.workTree // paths in and out are relative to the root
	}
	cmd.Stdin = stdin
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("rewind: git %s: %w", args[0], ctx.Err())
		}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return stdout.Bytes(), &gitError{args: args, stderr: strings.TrimSpace(stderr.String()), code: exit.ExitCode()}
		}
		return nil, fmt.Errorf("rewind: cannot run git (is it installed and on PATH?): %w", err)
	}
	return stdout.Bytes(), nil
}

type gitError struct {
	args   []string
	stderr string
	code   int
}

func (e *gitError) Error() string {
	return fmt.Sprintf("rewind: git %s failed (exit %d): %s", e.args[0], e.code, e.stderr)
}

// splitNUL splits git's -z output.
func splitNUL(out []byte) []string {
	out = bytes.TrimSuffix(out, []byte{0})
	if len(out) == 0 {
		return nil
	}
	return strings.Split(string(out), "\x00")
}

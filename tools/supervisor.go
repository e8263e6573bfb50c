package tools

import (
	"os"
	"os/exec"

	"github.com/chatls/chatls/tools/procsup"
)

// The parent side of the tool supervisor; the supervisor itself, and why it
// exists, is package procsup.

// supervisionAvailable is false where /proc/self/exe cannot be executed; tools
// then run directly in their own group with the parent-death signal.
var supervisionAvailable = func() bool {
	fi, err := os.Stat(procsup.Self)
	return err == nil && fi.Mode().IsRegular()
}()

// lifeline is the pipe between chatls and one supervisor.
type lifeline struct{ r, w *os.File }

// started closes chatls's copy of the read end once the supervisor has its own.
func (l *lifeline) started() {
	if l != nil {
		l.r.Close()
	}
}

// cut closes the write end: the supervisor ends the call's processes and exits.
// Safe to call more than once and concurrently.
func (l *lifeline) cut() {
	if l != nil {
		l.r.Close()
		l.w.Close()
	}
}

// supervised wraps cmd (already resolved: cmd.Path set, cmd.Err nil) in a
// supervisor. It returns the command to start and the lifeline, which the
// caller cuts to stop the call. Without supervision it returns cmd itself and
// a nil lifeline.
func supervised(cmd *exec.Cmd) (*exec.Cmd, *lifeline, error) {
	if !supervisionAvailable {
		return cmd, nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	sup := &exec.Cmd{
		Path:       procsup.Self,
		Args:       append([]string{procsup.Arg0, cmd.Path}, cmd.Args...),
		Env:        append(env[:len(env):len(env)], procsup.Env+"=1"),
		Dir:        cmd.Dir,
		ExtraFiles: []*os.File{r},
	}
	return sup, &lifeline{r: r, w: w}, nil
}

package procsup

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"weak"

	"github.com/chatls/chatls/internal/keyenv"
)

// lifeline is the pipe between chatls and one supervisor. Both ends stay
// here until the supervisor has exited (or cmd is garbage): cmd.Start gives
// no moment to close the read end earlier, and holding it changes nothing,
// since the supervisor waits for EOF, which only writers decide.
type lifeline struct {
	r, w *os.File
	once sync.Once
}

func (l *lifeline) close() {
	l.once.Do(func() {
		l.w.Close()
		l.r.Close()
	})
}

// lifelines maps each supervised cmd, weakly, to its lifeline.
var lifelines sync.Map // weak.Pointer[exec.Cmd] → *lifeline

// supervise rewrites cmd to start the one-shot supervisor with cmd's program,
// arguments, environment and directory. It reports false, leaving cmd alone,
// where supervision is unavailable or cmd cannot be wrapped.
func supervise(cmd *exec.Cmd) bool {
	if !Available || cmd.Err != nil || cmd.Path == "" || len(cmd.ExtraFiles) > 0 || cmd.Process != nil {
		return false
	}
	exe := cmd.Path
	if !filepath.IsAbs(exe) && cmd.Dir != "" {
		exe = filepath.Join(cmd.Dir, exe) // where the supervisor will look
	}
	if _, err := exec.LookPath(exe); err != nil {
		return false // Start reports it as it is, not the supervisor's exit 127
	}
	r, w, err := os.Pipe()
	if err != nil {
		return false
	}
	env := cmd.Env
	if env == nil {
		env = keyenv.Environ()
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	cmd.Args = append([]string{Arg0, cmd.Path}, args...)
	cmd.Path = Self
	cmd.Env = append(env[:len(env):len(env)], Env+"="+OneShotMode)
	cmd.ExtraFiles = []*os.File{r} // fd 3: ControlFD
	l := &lifeline{r: r, w: w}
	key := weak.Make(cmd)
	lifelines.Store(key, l)
	// Whatever path drops cmd without WaitLeader (a failed Start above all)
	// does not leak the pipe; a supervisor still running then ends its child.
	runtime.AddCleanup(cmd, func(k weak.Pointer[exec.Cmd]) {
		if v, ok := lifelines.LoadAndDelete(k); ok {
			v.(*lifeline).close()
		}
	}, key)
	return true
}

// cutLifeline closes the lifeline of a supervised cmd, reporting whether it had one.
func cutLifeline(cmd *exec.Cmd) bool {
	v, ok := lifelines.Load(weak.Make(cmd))
	if ok {
		v.(*lifeline).close()
	}
	return ok
}

// releaseLifeline closes the lifeline once the supervisor has exited. The entry
// stays until cmd is garbage, so that a later Kill does nothing instead of
// signalling a group ID that may be reused once the supervisor is reaped.
func releaseLifeline(cmd *exec.Cmd) { cutLifeline(cmd) }

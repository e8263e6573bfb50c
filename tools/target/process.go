package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"time"
)

// runScript runs the command (on stdin, so no command line limits or
// quoting touch it) under a session of its own, so the whole tree can be
// killed by its process group: bash when the machine has it, else sh,
// stdin /dev/null, in dir ($2; the login directory when empty). The
// session's ID goes to a file the kill script reads. What the command
// left running when it ended is killed too, as locally.
const runScript = `t="${TMPDIR:-/tmp}/chatls-$1"
mkdir -m 700 "$t" || exit 125
cat > "$t/cmd"
if [ -n "$2" ] && ! cd "$2" 2>/dev/null; then chatls_note nodir; rm -rf "$t"; exit 1; fi
sh=sh; command -v bash >/dev/null 2>&1 && sh=bash
export PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0
# The login shell read ~/.bashrc already; a bash under sshd with SHLVL < 2
# would read it again for every command.
export SHLVL=$((${SHLVL:-0} + 1))
setsid "$sh" -c 'echo $$ > "$1/pid"; exec "$0" "$1/cmd"' "$sh" "$t" </dev/null &
wait $! 2>/dev/null
c=$?
p=$(cat "$t/pid" 2>/dev/null) && kill -9 -"$p" 2>/dev/null
rm -rf "$t"
exit $c`

// killScript kills the session of call $1 (waiting a little for it to
// have written its ID: the kill may come right after the start).
const killScript = `t="${TMPDIR:-/tmp}/chatls-$1"
i=0
while [ ! -s "$t/pid" ] && [ -d "$t" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
p=$(cat "$t/pid" 2>/dev/null) && kill -9 -"$p" 2>/dev/null
exit 0`

// ErrNoDir is returned when the working directory does not exist.
var ErrNoDir = errors.New("working directory does not exist")

// Process is a command's run on a machine.
type Process struct {
	Code int
	// Killed is set when ctx ended the run: the remote tree was killed.
	Killed bool
}

// killWait bounds how long the command's transport may take to end after
// its remote tree was killed.
const killWait = 5 * time.Second

// Run runs command on m in dir, streaming stdout and stderr merged into
// out. When ctx ends, the command's whole process tree on the machine is
// killed through a second script (the same connection) and Run returns
// once the first one has ended. An *Unreachable error means the link
// failed; the command may have run and must not be run again.
func Run(ctx context.Context, m Machine, command, dir string, out io.Writer) (Process, error) {
	token := newToken()
	// The transport outlives ctx by design: it must report the kill.
	runCtx, stopTransport := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopTransport(nil)
	type result struct {
		exit Exit
		err  error
	}
	finished := make(chan result, 1)
	go func() {
		exit, err := m.Exec(runCtx, runScript, []string{token, dir}, strings.NewReader(command), out)
		finished <- result{exit, err}
	}()
	var r result
	killed := false
	select {
	case r = <-finished:
	case <-ctx.Done():
		killed = true
		killCtx, cancel := context.WithTimeout(context.Background(), killWait)
		m.Exec(killCtx, killScript, []string{token}, nil, nil)
		cancel()
		select {
		case r = <-finished:
		case <-time.After(killWait):
			stopTransport(errors.New("the command did not end after it was killed"))
			r = <-finished
		}
	}
	if r.err != nil {
		if killed {
			// The link is gone, but the kill was sent first.
			return Process{Code: 137, Killed: true}, nil
		}
		return Process{}, r.err
	}
	if r.exit.Noted("nodir") {
		return Process{}, ErrNoDir
	}
	return Process{Code: r.exit.Code, Killed: killed}, nil
}

func newToken() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

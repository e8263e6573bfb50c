package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tmux runs commands in a tmux session on a machine (SPEC §8): an owned
// session (created if missing, marked with the @chatls-owned option so it
// is never mistaken for the user's) or, on this machine, the user's own
// pane ($TMUX_PANE). Commands are sourced by the pane's shell, so the
// directory and variables persist between calls as in a terminal, and the
// user can attach and watch.
type Tmux struct {
	M       Machine
	Session string // default "chatls"
	Socket  string // tmux -S SOCKET ("" for the default server)
	Pane    string // the user's pane (%N) instead of an owned session
	Root    string // where a new session starts

	mu      sync.Mutex // one command at a time per session
	started bool       // this process has used the session: its loss is told
}

// tmuxFunc runs tmux on the session's server; $TM_SOCK is the socket.
const tmuxFunc = `tm() { if [ -n "$TM_SOCK" ]; then tmux -S "$TM_SOCK" "$@"; else tmux "$@"; fi; }
command -v tmux >/dev/null 2>&1 || { echo notmux; exit 0; }
`

// ensureScript: $1 socket, $2 session, $3 root. Prints the pane ID and
// "created", "existing" or "foreign" (a session chatls did not make), or
// "notmux".
const ensureScript = `TM_SOCK=$1 S=$2
` + tmuxFunc + `if tm has-session -t "=$S" 2>/dev/null; then
  if [ "$(tm show-options -t "=$S:" -qv @chatls-owned 2>/dev/null)" = 1 ]; then s=existing; else s=foreign; fi
else
  sh=sh; command -v bash >/dev/null 2>&1 && sh=bash
  if [ -n "$3" ] && [ -d "$3" ]; then tm new-session -d -s "$S" -x 200 -y 50 -c "$3" "$sh" || exit 1
  else tm new-session -d -s "$S" -x 200 -y 50 "$sh" || exit 1; fi
  tm set-option -t "=$S:" @chatls-owned 1 >/dev/null
  tm set-option -t "=$S:" remain-on-exit off >/dev/null
  s=created
fi
printf '%s %s\n' "$(tm display-message -p -t "=$S:" '#{pane_id}')" "$s"`

// ErrNoTmux is returned when the machine has no tmux.
var ErrNoTmux = errors.New("tmux is not installed there")

// ensure returns the pane to use and a notice when the session had to be
// made again (what ran in it before is gone).
func (t *Tmux) ensure(ctx context.Context) (pane, notice string, err error) {
	if t.Pane != "" {
		return t.Pane, "", nil
	}
	out, err := t.script(ctx, ensureScript, []string{t.Socket, t.session(), t.Root}, nil)
	if err != nil {
		return "", "", err
	}
	fields := strings.Fields(out)
	switch {
	case out == "notmux":
		return "", "", ErrNoTmux
	case len(fields) != 2:
		return "", "", fmt.Errorf("tmux could not start session %s: %s", t.session(), out)
	case fields[1] == "foreign":
		return "", "", fmt.Errorf("a tmux session named %s exists that chatls did not create; it is left alone (choose another name with the target's session setting)", t.session())
	case fields[1] == "created" && t.started:
		notice = fmt.Sprintf("[The tmux session %s had ended; chatls started a new one. What the shell had before (directory, variables, running programs) is gone.]", t.session())
	}
	t.started = true
	return fields[0], notice, nil
}

func (t *Tmux) session() string {
	if t.Session == "" {
		return "chatls"
	}
	return t.Session
}

// SessionName is what the user attaches to (tmux attach -t NAME).
func (t *Tmux) SessionName() string {
	if t.Pane != "" {
		return "pane " + t.Pane
	}
	return t.session()
}

// script runs a tmux script with $TM_SOCK's socket and returns its output.
func (t *Tmux) script(ctx context.Context, script string, args []string, stdin io.Reader) (string, error) {
	var out strings.Builder
	exit, err := t.M.Exec(ctx, script, args, stdin, &out)
	if err != nil {
		return "", err
	}
	text := strings.TrimSpace(out.String())
	if exit.Code != 0 {
		return text, fmt.Errorf("tmux failed: %s", text)
	}
	return text, nil
}

// tm runs one tmux command (args as given) on the session's server.
func (t *Tmux) tm(ctx context.Context, args ...string) (string, error) {
	return t.script(ctx, "TM_SOCK=$1; shift\n"+tmuxFunc+"tm \"$@\"", append([]string{t.Socket}, args...), nil)
}

// prepareScript writes the command's two scripts ($1 token, command on
// stdin) and prints the directory holding them.
const prepareScript = `d="${TMPDIR:-/tmp}/chatls-tmux-$(id -u)"
mkdir -p -m 700 "$d" || exit 1
cat > "$d/$1.cmd"
printf '%s\n' "$d"`

// Wait is how long RunCommand waits for the command: Forever (until it
// ends or the timeout), zero (start it and return), or a duration after
// which the command keeps running and the output so far is returned.
type Wait struct {
	Forever bool
	For     time.Duration
}

// CommandResult is a command's run in the pane.
type CommandResult struct {
	Output string
	// Code is the exit code when the command ended.
	Code    int
	Ended   bool
	Running bool // still running (a wait ran out, or C-c did not stop it)
	// TimedOut is set when the timeout passed and C-c was sent.
	TimedOut bool
	// ScrolledOut is set when the start of the output had left the pane's history.
	ScrolledOut bool
	Pane        string
	Notice      string // the session had to be made again
}

var startMarker = regexp.MustCompile(`^__CHATLS_START_([0-9a-f]+)__$`)

// RunCommand sources command in the pane's shell between start and end
// markers carrying the exit code and reads the output back from the pane.
// The markers are printed by printf from split pieces, so the typed line
// never holds them; a token nobody else knows makes them unique. The end
// is awaited with tmux wait-for, not by polling; progress, when set, gets
// the pane's last line every progressEvery.
func (t *Tmux) RunCommand(ctx context.Context, command string, wait Wait, timeout time.Duration, progress func(string)) (CommandResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pane, notice, err := t.ensure(ctx)
	if err != nil {
		return CommandResult{}, err
	}
	res := CommandResult{Pane: pane, Notice: notice}
	if busy, err := t.busy(ctx, pane); err != nil {
		return res, err
	} else if busy != "" {
		return res, fmt.Errorf("tmux pane %s is busy running %s; read it with capture_pane or stop it with send_keys [\"C-c\"] first", pane, busy)
	}
	token := newToken()
	channel := "chatls-" + token
	dir, err := t.script(ctx, prepareScript, []string{token}, strings.NewReader(commandScript(command, token, channel)))
	if err != nil {
		return res, err
	}
	file := dir + "/" + token + ".cmd"
	if _, err := t.tm(ctx, "send-keys", "-t", pane, "-l", " . "+quote(file)); err != nil {
		return res, err
	}
	if _, err := t.tm(ctx, "send-keys", "-t", pane, "Enter"); err != nil {
		return res, err
	}
	if !wait.Forever && wait.For <= 0 {
		res.Running = true
		return res, nil
	}
	limit := timeout
	if !wait.Forever && (limit <= 0 || wait.For < limit) {
		limit = wait.For
	}
	ended, err := t.await(ctx, pane, channel, limit, progress)
	if err != nil {
		return res, err
	}
	// The timeout or the user's cancel stops the command with C-c. Bash
	// then abandons the sourced script before its end marker, so the
	// marker (with $?, 130) is typed at the prompt; extractOutput ends the
	// output before that typed line.
	cancelled := ctx.Err() != nil
	if !ended && (cancelled || wait.Forever || limit == timeout) {
		res.TimedOut = !cancelled
		stopCtx := context.WithoutCancel(ctx)
		t.tm(stopCtx, "send-keys", "-t", pane, "C-c")
		t.tm(stopCtx, "send-keys", "-t", pane, "-l", " "+typedEnd(token)+"; tmux wait-for -S "+channel)
		t.tm(stopCtx, "send-keys", "-t", pane, "Enter")
		ended, _ = t.await(stopCtx, pane, channel, 5*time.Second, nil)
	}
	text, err := t.tm(context.WithoutCancel(ctx), "capture-pane", "-p", "-J", "-t", pane, "-S", "-", "-E", "-")
	if err != nil {
		return res, err
	}
	res.Output, res.Code, res.Ended, res.ScrolledOut = extractOutput(text, token)
	res.Running = !res.Ended
	return res, nil
}

// typedEnd prints the end marker from split pieces, as commandScript does.
func typedEnd(token string) string {
	return "printf '\\n__CHATLS_%s_%s_%d__\\n' END " + token + " $?"
}

// commandScript is what the pane's shell sources.
func commandScript(command, token, channel string) string {
	return "printf '%s_%s__\\n' __CHATLS_START " + token + "\n" +
		command + "\n" +
		"printf '\\n__CHATLS_%s_%s_%d__\\n' END " + token + " \"$?\"\n" +
		"rm -f \"${TMPDIR:-/tmp}/chatls-tmux-$(id -u)/" + token + ".cmd\"\n" +
		"tmux wait-for -S " + channel + "\n"
}

// extractOutput finds the run's output between its markers in the pane's
// text: ended says the end marker (with the exit code) was there.
func extractOutput(pane, token string) (out string, code int, ended, scrolledOut bool) {
	lines := strings.Split(strings.TrimRight(pane, "\n"), "\n")
	start := -1
	endRe := regexp.MustCompile(`^__CHATLS_END_` + token + `_(\d+)__$`)
	for i, l := range lines {
		if m := startMarker.FindStringSubmatch(l); m != nil && m[1] == token {
			start = i
		}
	}
	if start < 0 {
		scrolledOut = true
	}
	end, typed := len(lines), -1
	for i := start + 1; i < len(lines); i++ {
		if typed < 0 && strings.Contains(lines[i], typedEnd(token)) {
			typed = i // the prompt with the typed end marker after a C-c
		}
		if m := endRe.FindStringSubmatch(lines[i]); m != nil {
			end, ended = i, true
			code, _ = strconv.Atoi(m[1])
			break
		}
	}
	if typed >= 0 {
		end = typed
	}
	body := lines[start+1 : end]
	if ended && len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1] // the end marker's own newline
	}
	if !ended {
		// Still running: the prompt is not there yet; trailing blank screen lines are.
		for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
			body = body[:len(body)-1]
		}
	}
	return strings.Join(body, "\n"), code, ended, scrolledOut
}

const progressEvery = 500 * time.Millisecond

// await waits for the channel's signal up to limit (0: no limit). It
// watches the pane meanwhile: one that died fails the wait.
func (t *Tmux) await(ctx context.Context, pane, channel string, limit time.Duration, progress func(string)) (bool, error) {
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	signalled := make(chan error, 1)
	go func() {
		_, err := t.tm(waitCtx, "wait-for", channel)
		signalled <- err
	}()
	var deadline <-chan time.Time
	if limit > 0 {
		timer := time.NewTimer(limit)
		defer timer.Stop()
		deadline = timer.C
	}
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	release := func() {
		// The waiting tmux client on the machine must not stay behind.
		t.tm(context.WithoutCancel(ctx), "wait-for", "-S", channel)
		<-signalled
	}
	for {
		select {
		case err := <-signalled:
			return err == nil, err
		case <-deadline:
			release()
			return false, nil
		case <-ctx.Done():
			release()
			return false, nil
		case <-tick.C:
			last, err := t.tm(ctx, "display-message", "-p", "-t", pane, "#{pane_dead}")
			if err != nil || last == "1" {
				release()
				return false, fmt.Errorf("the tmux pane %s died during the call (%v); the next call starts a new session", pane, err)
			}
			if progress != nil {
				if text, err := t.tm(ctx, "capture-pane", "-p", "-J", "-t", pane); err == nil {
					progress(lastLine(text))
				}
			}
		}
	}
}

func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n "), "\n")
	return lines[len(lines)-1]
}

// busyScript: $1 socket, $2 pane. Prints "idle" when the pane's shell
// holds the terminal's foreground (its process group is the terminal's,
// from /proc), else the name of the program in the foreground.
const busyScript = `TM_SOCK=$1
` + tmuxFunc + `set -- $(tm display-message -p -t "$2" '#{pane_pid} #{pane_current_command}')
pid=$1 cmd=$2
if [ -r "/proc/$pid/stat" ]; then
  s=$(cat "/proc/$pid/stat"); s=${s##*) }
  set -- $s
  if [ "$3" = "$6" ]; then echo idle; else echo "$cmd"; fi
else
  case $cmd in bash|sh|zsh|dash|ash|ksh|fish) echo idle ;; *) echo "$cmd" ;; esac
fi`

// busy names the program in the foreground of the pane when it is not
// the shell ("" when idle). A program that was just interrupted (send_keys
// C-c) takes a moment to give the terminal back: it is asked again for up
// to busySettle before the pane counts as busy.
func (t *Tmux) busy(ctx context.Context, pane string) (string, error) {
	deadline := time.Now().Add(busySettle)
	for {
		state, err := t.script(ctx, busyScript, []string{t.Socket, pane}, nil)
		if err != nil {
			return "", err
		}
		if state == "idle" {
			return "", nil
		}
		if time.Now().After(deadline) {
			return state, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

const busySettle = 500 * time.Millisecond

// Capture returns the pane's text: start and end are capture-pane's line
// numbers as strings ("-" = the history's start or the screen's end, ""
// = the default), join joins wrapped lines, escapes keeps colours.
func (t *Tmux) Capture(ctx context.Context, pane, start, end string, join, escapes bool) (string, error) {
	pane, err := t.paneOr(ctx, pane)
	if err != nil {
		return "", err
	}
	args := []string{"capture-pane", "-p", "-t", pane}
	if join {
		args = append(args, "-J")
	}
	if escapes {
		args = append(args, "-e")
	}
	if start != "" {
		args = append(args, "-S", start)
	}
	if end != "" {
		args = append(args, "-E", end)
	}
	return t.tm(ctx, args...)
}

// paneOr is pane, or when it is empty the session's (made if missing).
func (t *Tmux) paneOr(ctx context.Context, pane string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, _, err := t.ensure(ctx)
	if pane == "" {
		pane = p
	}
	return pane, err
}

// SendKeys sends tmux key names (C-c, Up, Enter) or literal text.
func (t *Tmux) SendKeys(ctx context.Context, pane string, keys []string, literal string) (string, error) {
	pane, err := t.paneOr(ctx, pane)
	if err != nil {
		return "", err
	}
	if literal != "" {
		_, err = t.tm(ctx, "send-keys", "-t", pane, "-l", "--", literal)
	} else {
		_, err = t.tm(ctx, append([]string{"send-keys", "-t", pane, "--"}, keys...)...)
	}
	return pane, err
}

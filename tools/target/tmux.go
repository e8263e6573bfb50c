package target

import (
	"cmp"
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
// session, created if missing and marked with the @chatls-owned option so
// it is never mistaken for the user's, on the machine's default tmux
// server (on this machine, inside tmux, the user's own server: $TMUX) or
// the one of Socket. Commands are sourced by the pane's shell, so the
// directory and variables persist between calls as in a terminal, and the
// user can attach and watch.
type Tmux struct {
	M       Machine
	Session string // default "chatls"
	Socket  string // tmux -S SOCKET ("" for the default server)
	Root    string // where a new session starts

	mu      sync.Mutex // one command at a time per session
	started bool       // this process has used the session: its loss is told
}

// tmuxFunc runs tmux on the session's server; $TM_SOCK is the socket.
const tmuxFunc = `tm() { if [ -n "$TM_SOCK" ]; then tmux -S "$TM_SOCK" "$@"; else tmux "$@"; fi; }
command -v tmux >/dev/null 2>&1 || { echo notmux; exit 0; }
`

// ensurePart leaves the pane's ID in $pane, its shell's process and the
// program in its foreground in $ppid and $pcmd, and how the session was
// found in $state ("created" or "existing"); or it prints "foreign" (a
// session chatls did not make) or "notmux" and ends. $1 socket, $2
// session, $3 root, $4 a token. One tmux call when the session exists.
const ensurePart = `TM_SOCK=$1 S=$2 ROOT=$3 TOKEN=$4
` + tmuxFunc + `paneinfo() { tm display-message -p -t "=$S:" '#{session_name} #{pane_id} #{@chatls-owned}. #{pane_pid} #{pane_current_command}' 2>/dev/null; }
set -- $(paneinfo)
if [ "$1" = "$S" ]; then
  [ "$3" = 1. ] || { echo foreign; exit 0; }
  state=existing
else
  sh=sh; command -v bash >/dev/null 2>&1 && sh=bash
  # The server this may start must not hold the report channel (fd 3):
  # the call would wait for it to close.
  if [ -n "$ROOT" ] && [ -d "$ROOT" ]; then tm new-session -d -s "$S" -x 200 -y 50 -c "$ROOT" "$sh" 3>&- || exit 1
  else tm new-session -d -s "$S" -x 200 -y 50 "$sh" 3>&- || exit 1; fi
  tm set-option -t "=$S:" @chatls-owned 1 \; set-option -t "=$S:" remain-on-exit off >/dev/null
  state=created
  # Type nothing before the new shell is ready: it runs this line once
  # its start-up files are read (waited for 10 s at most).
  r=chatls-ready-$TOKEN
  ( sleep 10; tm wait-for -S "$r" ) </dev/null >/dev/null 2>&1 3>&- &
  tm send-keys -t "=$S:" -l " tmux wait-for -S $r" \; send-keys -t "=$S:" Enter
  tm wait-for "$r"; kill $! 2>/dev/null
  set -- $(paneinfo)
fi
pane=$2 ppid=$4 pcmd=$5
`

// ensureScript prints "PANE STATE" (see ensurePart).
const ensureScript = ensurePart + `printf '%s %s\n' "$pane" "$state"`

// ErrNoTmux is returned when the machine has no tmux.
var ErrNoTmux = errors.New("tmux is not installed there")

// ensure returns the pane to use and a notice when the session had to be
// made again (what ran in it before is gone).
func (t *Tmux) ensure(ctx context.Context) (pane, notice string, err error) {
	out, err := t.script(ctx, ensureScript, []string{t.Socket, t.session(), t.Root, newToken()}, nil)
	if err != nil {
		return "", "", err
	}
	pane, notice, _, err = t.sessionState(out)
	return pane, notice, err
}

// sessionState reads ensurePart's answer: "PANE STATE [REST]" or a
// single word saying why there is no pane.
func (t *Tmux) sessionState(out string) (pane, notice, rest string, err error) {
	fields := strings.SplitN(out, " ", 3)
	switch {
	case out == "notmux":
		return "", "", "", ErrNoTmux
	case out == "foreign":
		return "", "", "", fmt.Errorf("a tmux session named %s exists that chatls did not create; it is left alone (choose another name with the target's session setting)", t.session())
	case len(fields) < 2 || !strings.HasPrefix(fields[0], "%"):
		return "", "", "", fmt.Errorf("tmux could not start session %s: %s", t.session(), out)
	case fields[1] == "created" && t.started:
		notice = fmt.Sprintf("[The tmux session %s had ended; chatls started a new one. What the shell had before (directory, variables, running programs) is gone.]", t.session())
	}
	t.started = true
	if len(fields) == 3 {
		rest = fields[2]
	}
	return fields[0], notice, rest, nil
}

func (t *Tmux) session() string {
	if t.Session == "" {
		return "chatls"
	}
	return t.Session
}

// SessionName is what the user attaches to (tmux attach -t NAME).
func (t *Tmux) SessionName() string { return t.session() }

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

// startScript types a command into the session's pane in one trip to the
// machine: it ensures the session (ensurePart), checks that the pane's
// shell holds the terminal's foreground (its process group is the
// terminal's, from /proc; a program just interrupted gets half a second
// to give it back), writes the command's script (stdin) to a directory
// only this user can write, and types ". FILE". $4 is the token. Prints
// "PANE STATE started" or "PANE STATE busy PROGRAM".
const startScript = ensurePart + `i=0
while :; do
  fg=$pcmd
  if [ -r "/proc/$ppid/stat" ]; then
    s=$(cat "/proc/$ppid/stat"); s=${s##*) }
    set -- $s
    [ "$3" = "$6" ] && fg=
  else
    case $fg in bash|sh|zsh|dash|ash|ksh|fish) fg= ;; esac
  fi
  [ -z "$fg" ] && break
  i=$((i+1))
  if [ "$i" -ge 10 ]; then printf '%s %s busy %s\n' "$pane" "$state" "$fg"; exit 0; fi
  sleep 0.05
  set -- $(paneinfo); ppid=$4 pcmd=$5
done
d="${TMPDIR:-/tmp}/chatls-tmux-$(id -u)"
case $d in *[!A-Za-z0-9/._-]*) d="/tmp/chatls-tmux-$(id -u)" ;; esac
mkdir -p -m 700 "$d" || exit 1
[ -d "$d" ] && [ ! -L "$d" ] && [ -O "$d" ] || { echo "$d is not a directory of this user's"; exit 1; }
# The script removes itself first (the shell has it open already).
chmod 700 "$d" && { printf 'rm -f -- %s\n' "$d/$TOKEN.cmd"; cat; } > "$d/$TOKEN.cmd" || exit 1
tm send-keys -t "$pane" -l " . $d/$TOKEN.cmd" \; send-keys -t "$pane" Enter || exit 1
printf '%s %s started\n' "$pane" "$state"`

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
	return t.RunCommandFrom(ctx, "", command, wait, timeout, progress)
}

// RunCommandFrom is RunCommand where a session it has to create starts in
// dir when the target has no Root (the local target: the document's
// directory).
func (t *Tmux) RunCommandFrom(ctx context.Context, dir, command string, wait Wait, timeout time.Duration, progress func(string)) (CommandResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	token := newToken()
	channel := "chatls-" + token
	// A call that returns before the end waits for the start: the next
	// command must not be typed while this one is still only typed.
	startChannel := ""
	if !wait.Forever {
		startChannel = "chatls-start-" + token
	}
	out, err := t.script(ctx, startScript, []string{t.Socket, t.session(), cmp.Or(t.Root, dir), token}, strings.NewReader(commandScript(command, token, channel, startChannel)))
	if err != nil {
		return CommandResult{}, err
	}
	pane, notice, rest, err := t.sessionState(out)
	if err != nil {
		return CommandResult{}, err
	}
	res := CommandResult{Pane: pane, Notice: notice}
	if busy, ok := strings.CutPrefix(rest, "busy "); ok {
		return res, fmt.Errorf("tmux pane %s is busy running %s; read it with capture_pane or stop it with send_keys [\"C-c\"] first", pane, busy)
	}
	if startChannel != "" {
		if _, _, err := t.await(ctx, pane, startChannel, timeout, nil, false); err != nil {
			return res, err
		}
	}
	if !wait.Forever && wait.For <= 0 {
		res.Running = true
		return res, nil
	}
	limit := timeout
	if !wait.Forever && (limit <= 0 || wait.For < limit) {
		limit = wait.For
	}
	text, ended, err := t.await(ctx, pane, channel, limit, progress, true)
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
		t.tm(stopCtx, "send-keys", "-t", pane, "C-c", ";", "send-keys", "-t", pane, "-l", " "+typedEnd(token)+"; tmux wait-for -S "+channel, ";", "send-keys", "-t", pane, "Enter")
		text, ended, _ = t.await(stopCtx, pane, channel, 5*time.Second, nil, true)
	}
	if !ended {
		if text, err = t.tm(context.WithoutCancel(ctx), captureAll(pane)...); err != nil {
			return res, err
		}
	}
	res.Output, res.Code, res.Ended, res.ScrolledOut = extractOutput(text, token)
	res.Running = !res.Ended
	return res, nil
}

// captureAll is the capture-pane command for a pane's whole history.
func captureAll(pane string) []string {
	return []string{"capture-pane", "-p", "-J", "-t", pane, "-S", "-", "-E", "-"}
}

// typedEnd prints the end marker from split pieces, as commandScript does.
func typedEnd(token string) string {
	return "printf '\\n__CHATLS_%s_%s_%d__\\n' END " + token + " $?"
}

// commandScript is what the pane's shell sources. startChannel, when
// set, is signalled once the command has begun.
func commandScript(command, token, channel, startChannel string) string {
	started := ""
	if startChannel != "" {
		started = "tmux wait-for -S " + startChannel + "\n"
	}
	return "printf '%s_%s__\\n' __CHATLS_START " + token + "\n" +
		started +
		command + "\n" +
		"printf '\\n__CHATLS_%s_%s_%d__\\n' END " + token + " \"$?\"\n" +
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
	body := lines[start+1 : end]
	if typed >= 0 {
		body = lines[start+1 : typed]
		// The terminal's echo of the C-c stays, not a prompt before it.
		if before, _, _ := strings.Cut(lines[typed], typedEnd(token)); strings.TrimSpace(before) == "^C" {
			body = append(body[:len(body):len(body)], "^C")
		}
	}
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

// awaitScript waits for channel $2 and then prints pane $3's history
// (with no pane, nothing).
const awaitScript = `TM_SOCK=$1
` + tmuxFunc + `tm wait-for "$2" && { [ -z "$3" ] || tm capture-pane -p -J -t "$3" -S - -E -; }`

func paneDied(pane, why string) error {
	return fmt.Errorf("the tmux pane %s died during the call (%s); the next call starts a new session", pane, why)
}

// watchScript prints "PANE DEAD" of pane $2 (nothing when it is gone)
// and, when $3 is set, its screen: one trip per progress tick.
const watchScript = `TM_SOCK=$1
` + tmuxFunc + `tm display-message -p -t "$2" '#{pane_id} #{pane_dead}' 2>/dev/null
[ -z "$3" ] || tm capture-pane -p -J -t "$2"`

// await waits for the channel's signal up to limit (0: no limit) and
// returns the pane's text then when capture is set, read in the same
// trip. It watches the pane meanwhile: one that died fails the wait.
func (t *Tmux) await(ctx context.Context, pane, channel string, limit time.Duration, progress func(string), capture bool) (string, bool, error) {
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type signal struct {
		text string
		err  error
	}
	signalled := make(chan signal, 1)
	go func() {
		show := ""
		if capture {
			show = pane
		}
		text, err := t.script(waitCtx, awaitScript, []string{t.Socket, channel, show}, nil)
		signalled <- signal{text, err}
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
		case s := <-signalled:
			if s.err != nil && ctx.Err() != nil {
				// Cancelled: the waiter on the machine may outlive its
				// transport; the caller stops the command.
				t.tm(context.WithoutCancel(ctx), "wait-for", "-S", channel)
				return "", false, nil
			}
			if s.err != nil && !IsUnreachable(s.err) {
				// The wait ends in error when the pane's server went away
				// with its last session.
				return "", false, paneDied(pane, s.err.Error())
			}
			return s.text, s.err == nil, s.err
		case <-deadline:
			release()
			return "", false, nil
		case <-ctx.Done():
			release()
			return "", false, nil
		case <-tick.C:
			show := ""
			if progress != nil {
				show = "1"
			}
			out, err := t.script(ctx, watchScript, []string{t.Socket, pane, show}, nil)
			if ctx.Err() != nil {
				// Cancelled meanwhile (a progress report's own cancel, and
				// the tick won the select): the look failed for that, not
				// because the pane died.
				release()
				return "", false, nil
			}
			state, screen, _ := strings.Cut(out, "\n")
			if err != nil || state != pane+" 0" {
				release()
				return "", false, paneDied(pane, cmp.Or(state, "gone"))
			}
			if progress != nil {
				progress(lastLine(screen))
			}
		}
	}
}

func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n "), "\n")
	return lines[len(lines)-1]
}

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

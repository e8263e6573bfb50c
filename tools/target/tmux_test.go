package target_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testsshd"
	"github.com/chatls/chatls/tools/target"
)

// privateTmux is a tmux server of the test's own (a socket in a temp
// dir), killed at cleanup.
func privateTmux(t *testing.T) *target.Tmux {
	t.Helper()
	sock := testsshd.TmuxSocket(t)
	return &target.Tmux{M: target.Local{}, Socket: sock, Root: t.TempDir()}
}

func tmuxCmd(tm *target.Tmux, args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-S", tm.Socket}, args...)...)
}

var forever = target.Wait{Forever: true}

func TestTmuxMarkersOutputAndExitCodes(t *testing.T) {
	tm := privateTmux(t)
	ctx := context.Background()
	r, err := tm.RunCommand(ctx, "echo __CHATLS_END_deadbeef_0__; printf '__CHATLS_START_%s__\\n' abc; printf 'a\\nb\\n\\nc\\n'; (exit 3)", forever, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "__CHATLS_END_deadbeef_0__\n__CHATLS_START_abc__\na\nb\n\nc"
	if !r.Ended || r.Code != 3 || r.Output != want {
		t.Fatalf("result %+v, want output %q and exit 3", r, want)
	}
	// The shell persists: a directory change stays for the next call.
	if _, err := tm.RunCommand(ctx, "cd /tmp && FOO=kept", forever, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	r, err = tm.RunCommand(ctx, "echo \"$PWD $FOO\"", forever, time.Minute, nil)
	if err != nil || r.Output != "/tmp kept" || r.Code != 0 {
		t.Fatalf("second call %+v %v", r, err)
	}
	out, _ := tmuxCmd(tm, "show-options", "-t", "=chatls:", "-qv", "@chatls-owned").Output()
	if strings.TrimSpace(string(out)) != "1" {
		t.Fatalf("the session is not marked as chatls's: %q", out)
	}
}

func TestTmuxWaitFalseThenCapture(t *testing.T) {
	tm := privateTmux(t)
	ctx := context.Background()
	r, err := tm.RunCommand(ctx, "echo later-output; tmux wait-for -S test-done", target.Wait{}, time.Minute, nil)
	if err != nil || !r.Running {
		t.Fatalf("wait=false: %+v %v", r, err)
	}
	if out, err := tmuxCmd(tm, "wait-for", "test-done").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	text, err := tm.Capture(ctx, "", "-", "", true, false)
	if err != nil || !strings.Contains(text, "\nlater-output\n") {
		t.Fatalf("capture %q %v", text, err)
	}
}

func TestTmuxSendKeysCtrlCStopsACommand(t *testing.T) {
	tm := privateTmux(t)
	ctx := context.Background()
	r, err := tm.RunCommand(ctx, "sh -c 'trap \"tmux wait-for -S test-stopped; exit 130\" INT; tmux wait-for -S test-armed; sleep 300.777'", target.Wait{For: 300 * time.Millisecond}, time.Minute, nil)
	if err != nil || !r.Running || r.TimedOut {
		t.Fatalf("wait=0.3: %+v %v", r, err)
	}
	// The C-c must find the trap set (on a busy machine sh may not have
	// got that far yet), or test-stopped is never signalled.
	if out, err := tmuxCmd(tm, "wait-for", "test-armed").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if _, err := tm.RunCommand(ctx, "echo no", forever, time.Minute, nil); err == nil || !strings.Contains(err.Error(), "busy running sh") {
		t.Fatalf("a command typed into a busy pane: %v", err)
	}
	if _, err := tm.SendKeys(ctx, "", []string{"C-c"}, ""); err != nil {
		t.Fatal(err)
	}
	if out, err := tmuxCmd(tm, "wait-for", "test-stopped").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if n := countProcesses(t, "sleep 300.777"); n != 0 {
		t.Fatalf("%d sleeps left after C-c", n)
	}
}

func TestTmuxTimeoutSendsCtrlC(t *testing.T) {
	tm := privateTmux(t)
	// The session and its shell first: the timeout below is the command's
	// alone, and long enough for a busy machine's shell to start it (with
	// 500 ms the C-c could come before "before" was printed).
	if _, err := tm.RunCommand(context.Background(), "true", forever, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	r, err := tm.RunCommand(context.Background(), "echo before; sleep 300.888", forever, 5*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.TimedOut || !r.Ended || r.Code != 130 || !strings.HasPrefix(r.Output, "before") {
		t.Fatalf("result %+v, want a timeout ended by C-c (130)", r)
	}
	if n := countProcesses(t, "sleep 300.888"); n != 0 {
		t.Fatalf("%d sleeps left after the timeout", n)
	}
}

func TestTmuxDeadSessionIsRecreatedWithANotice(t *testing.T) {
	tm := privateTmux(t)
	ctx := context.Background()
	if _, err := tm.RunCommand(ctx, "true", forever, time.Minute, nil); err != nil {
		t.Fatal(err)
	}
	if out, err := tmuxCmd(tm, "kill-session", "-t", "=chatls").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	r, err := tm.RunCommand(ctx, "echo again", forever, time.Minute, nil)
	if err != nil || r.Output != "again" || !strings.Contains(r.Notice, "had ended; chatls started a new one") {
		t.Fatalf("after the session died: %+v %v", r, err)
	}
}

func TestTmuxForeignSessionIsLeftAlone(t *testing.T) {
	tm := privateTmux(t)
	if out, err := tmuxCmd(tm, "new-session", "-d", "-s", "chatls").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	_, err := tm.RunCommand(context.Background(), "echo hi", forever, time.Minute, nil)
	if err == nil || !strings.Contains(err.Error(), "chatls did not create") {
		t.Fatalf("foreign session: %v", err)
	}
}

func TestTmuxCancelStopsTheCommand(t *testing.T) {
	tm := privateTmux(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := func(last string) {
		if last == "begun" {
			cancel()
		}
	}
	r, err := tm.RunCommand(ctx, "echo begun; sleep 300.999", forever, time.Minute, progress)
	if err != nil {
		t.Fatal(err)
	}
	if r.TimedOut || !r.Ended || r.Code != 130 || r.Output != "begun\n^C" {
		t.Fatalf("cancelled: %+v", r)
	}
	if n := countProcesses(t, "sleep 300.999"); n != 0 {
		t.Fatalf("%d sleeps left after the cancel", n)
	}
}

// With TMUX_TMPDIR set in chatls's environment and no socket configured,
// a named session on the default server is found and its command ends:
// every tmux invocation, chatls's and the pane's, reaches the same server.
func TestTmuxDefaultServerUnderTMUXTMPDIR(t *testing.T) {
	testsshd.TmuxSocket(t) // skips without tmux
	dir := t.TempDir()
	t.Setenv("TMUX_TMPDIR", dir)
	t.Setenv("TMUX", "")
	t.Cleanup(func() { exec.Command("tmux", "kill-server").Run() })
	tm := &target.Tmux{M: target.Local{}, Session: "work-" + strings.ReplaceAll(t.Name(), "/", "-"), Root: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 2; i++ {
		r, err := tm.RunCommand(ctx, "echo here-"+strings.Repeat("x", i), forever, time.Minute, nil)
		if err != nil || !r.Ended || r.Output != "here-"+strings.Repeat("x", i) {
			t.Fatalf("call %d: %+v %v", i, r, err)
		}
	}
}

// A cancel from a progress report is a cancel even when the next progress
// tick is due at the same moment: the look at the pane that the cancel
// cuts short must not read as the pane having died (seen under load as
// "the tmux pane %0 died during the call (gone)").
func TestTmuxCancelFromProgressIsNotAPaneDeath(t *testing.T) {
	tm := privateTmux(t)
	for i := range 6 {
		ctx, cancel := context.WithCancel(context.Background())
		progress := func(last string) {
			if last == "begun" && ctx.Err() == nil {
				cancel()
				// Both the next tick and the cancel are ready when this
				// returns: the select may take either.
				time.Sleep(600 * time.Millisecond) // past the 500 ms progress tick
			}
		}
		r, err := tm.RunCommand(ctx, "echo begun; sleep 300.998", forever, time.Minute, progress)
		cancel()
		if err != nil {
			t.Fatalf("try %d: %v", i, err)
		}
		if !r.Ended || r.Code != 130 {
			t.Fatalf("try %d: %+v", i, r)
		}
	}
}

package builtin

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/tools"
)

// A cancel keeps every byte of output read before it, always: a call that
// printed (the progress showed the line, so it was read) and was cancelled
// at once ends with that output, then CancelledText — 200 times, in the
// sandbox where bubblewrap runs (its notes must not push the cancel text
// off the end), eight at a time so a busy machine is part of the test.
func TestCancelKeepsOutputReadBeforeIt(t *testing.T) {
	env := testEnv(t)
	if tools.SandboxAvailable("") == nil {
		env.Sandbox = tools.SandboxConfig{Enabled: true}
	}
	const calls, parallel = 200, 8
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	// The second line provokes a sandbox note (a refused write) in the sandbox.
	command := "echo begun-%d; echo x > /etc/chatls-cancel-probe 2>&1 || true; echo refused-%d; sleep 60"
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	failures := make(chan string, calls)
	for i := range calls {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			e := env
			want := fmt.Sprintf("refused-%d", i)
			var once sync.Once
			e.Progress = func(p tools.Progress) {
				if p.LastLine == want {
					once.Do(func() { cancel(tools.ErrCancelled) }) // at once, from the report itself
				}
			}
			began := time.Now()
			res := r.Run(ctx, tools.Call{ID: fmt.Sprint(i), Name: "bash", Input: map[string]any{"command": fmt.Sprintf(command, i, i)}}, e)
			if !res.Cancelled || !strings.HasPrefix(res.Text, fmt.Sprintf("begun-%d\n", i)) || !strings.Contains(res.Text, want+"\n") || !strings.HasSuffix(res.Text, tools.CancelledText) {
				failures <- fmt.Sprintf("call %d: %q", i, res.Text)
			}
			if d := time.Since(began); d > 50*time.Second {
				failures <- fmt.Sprintf("call %d: the cancel took %v (the command sleeps 60 s)", i, d)
			}
		})
	}
	wg.Wait()
	close(failures)
	n := 0
	for f := range failures {
		if n++; n <= 5 {
			t.Error(f)
		}
	}
	if n > 0 {
		t.Errorf("%d of %d cancelled calls lost output or were slow", n, calls)
	}
}

package tools

import (
	"context"
	"testing"
)

// TestProgressForToolsWithoutStreams: a non-bash tool gets periodic
// progress with its elapsed time and the last line it gave; nothing is
// reported after Run returned.
func TestProgressForToolsWithoutStreams(t *testing.T) {
	release := make(chan struct{})
	tool := fakeTool{def: Definition{Name: "slow"}, run: func(ctx context.Context, c Call, env Env) Result {
		env.Progress(Progress{LastLine: "step 1"})
		<-release
		return Result{Text: "done"}
	}}
	r := NewRunner(NewRegistry([]Tool{tool}))
	env := testEnv(t)
	got := make(chan Progress, 100)
	returned := make(chan struct{})
	env.Progress = func(p Progress) {
		select {
		case <-returned:
			t.Errorf("progress after Run returned: %+v", p)
		default:
		}
		got <- p
	}
	done := make(chan Result)
	go func() { done <- r.Run(context.Background(), Call{ID: "p", Name: "slow"}, env) }()
	p := <-got
	if p.LastLine != "step 1" || p.ElapsedMillis < progressInterval.Milliseconds() {
		t.Errorf("first report %+v", p)
	}
	close(release)
	wantText(t, <-done, "done")
	close(returned)
}

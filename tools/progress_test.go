package tools

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
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

// TestGrepReportsLatestMatch: grep's progress line is its newest match.
func TestGrepReportsLatestMatch(t *testing.T) {
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, "a.txt"), "x\nneedle one\n")
	testfs.Write(t, filepath.Join(env.Dir, "b.txt"), "needle two\n")
	m, _ := compileLineMatcher("needle")
	var lines []string
	env.Progress = func(p Progress) { lines = append(lines, p.LastLine) }
	found, err := grepTree(context.Background(), m, env.Dir, ".", "", 10, env)
	if err != nil || len(found.matches) != 2 {
		t.Fatalf("%v %v", found, err)
	}
	if len(lines) != 2 || lines[1] != "b.txt:1:needle two" || !regexp.MustCompile(`^a.txt:2:`).MatchString(lines[0]) {
		t.Errorf("progress lines %q", lines)
	}
}

package builtin

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/tools"
)

// TestGrepReportsLatestMatch: grep's progress line is its newest match.
func TestGrepReportsLatestMatch(t *testing.T) {
	env := testEnv(t)
	testfs.Write(t, filepath.Join(env.Dir, "a.txt"), "x\nneedle one\n")
	testfs.Write(t, filepath.Join(env.Dir, "b.txt"), "needle two\n")
	m, _ := compileLineMatcher("needle")
	var lines []string
	env.Progress = func(p tools.Progress) { lines = append(lines, p.LastLine) }
	found, err := grepTree(context.Background(), m, env.Dir, ".", "", 10, env)
	if err != nil || len(found.matches) != 2 {
		t.Fatalf("%v %v", found, err)
	}
	if len(lines) != 2 || lines[1] != "b.txt:1:needle two" || !regexp.MustCompile(`^a.txt:2:`).MatchString(lines[0]) {
		t.Errorf("progress lines %q", lines)
	}
}

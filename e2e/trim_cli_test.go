package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// `chatls compact --trim FILE` shortens the old tool outputs over 2 KB to
// their first lines and the trimmed line, writes the calls with their whole
// outputs to FILE's archive, and asks no model; with nothing to trim it
// says why and leaves FILE alone (SPEC §11).
func TestCLICompactTrim(t *testing.T) {
	var out strings.Builder
	for i := 1; out.Len() < 3000; i++ {
		fmt.Fprintf(&out, "ok  \texample.com/pkg%03d\t0.%03ds\n", i, i)
	}
	output := out.String()
	call := "@You:\nrun the tests\n\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"go test ./...\"}\n```\n\n"
	result := "@You:\n**Tool Result:** `t1`\n\n```\n" + output + "```\n\n"
	var later string
	for _, q := range []string{"which is slowest?", "why?", "and now?"} {
		later += "@You:\n" + q + "\n\n@Assistant:\n" + strings.Repeat("pkg150 takes longest. ", 30) + "\n\n"
	}
	text := call + result + later + "@You:\nthanks\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "t.chat")
	testfs.Write(t, file, text)
	// No server: a request would fail. keepRecent leaves the newest 400
	// tokens alone, fewer than the three turns after the output.
	config := slowConfig("http://127.0.0.1:1/v1") + "[providers.slow.models.m]\ncontextWindow = 4000\n[context]\nkeepRecent = 0.1\n"

	code, stdout, stderr := chatlsIn(t, dir, config, t.TempDir(), "compact", "--trim", "t.chat")
	if code != 0 || stdout != fmt.Sprintf("trimmed 1 tool output of t.chat (%d bytes) into t.archive-1.chat\n", len(text)-len(mustRead(t, file))) {
		t.Fatalf("trim: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	kept := strings.Join(strings.SplitAfter(output, "\n")[:10], "")
	want := call + "@You:\n**Tool Result:** `t1`\n\n```\n" + kept + "[trimmed; full output in t.archive-1.chat]\n```\n\n" + later + "@You:\nthanks\n"
	if got := mustRead(t, file); got != want {
		t.Fatalf("FILE:\n%s\nwant:\n%s", got, want)
	}
	if got, want := mustRead(t, filepath.Join(dir, "t.archive-1.chat")), "@Assistant:\n\n"+strings.TrimPrefix(call, "@You:\nrun the tests\n\n@Assistant:\n")+"@You:\n\n"+strings.TrimPrefix(result, "@You:\n"); got != want {
		t.Fatalf("archive:\n%q\nwant:\n%q", got, want)
	}

	// Again: nothing left to trim.
	before := mustRead(t, file)
	code, _, stderr = chatlsIn(t, dir, config, t.TempDir(), "compact", "--trim", "t.chat")
	if code != 1 || !strings.Contains(stderr, "nothing to trim") || mustRead(t, file) != before {
		t.Fatalf("second trim: exit %d, stderr %q", code, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "t.archive-*")); len(m) != 1 {
		t.Fatalf("archives: %v", m)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

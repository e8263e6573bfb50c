package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `chatls policy check` end to end on the root causes of issue 41: the
// command line decides as the engine does.
func TestPolicyCheckRootCauses(t *testing.T) {
	dir := t.TempDir()
	// The temp dir is writable: make it one the workspace is not in.
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	doc := filepath.Join(dir, "ws", "doc.chat")
	must(os.MkdirAll(filepath.Join(dir, "ws", "src"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "outside"), 0o755))
	must(os.WriteFile(doc, []byte("@You:\nhi\n"), 0o644))
	cfg := filepath.Join(dir, "config.toml")
	must(os.WriteFile(cfg, []byte(`[tools]
autoApprove = ["$standard", "bash(cat *)", "bash(echo *)", "bash(sed *)", "bash(make *)", "web_fetch(url=https://example.com/*)"]
[[tools.rules]]
rule = "bash(make release *)"
decision = "deny"
[tools.bash]
cwd = "../outside"
`), 0o644))
	for _, c := range []struct {
		tool, input, want string
	}{
		{"bash", `{"command":"echo x > out.txt"}`, "require_approval"},       // 1: tools.bash.cwd is outside
		{"bash", `{"command":"cat /dev/fd/../environ"}`, "require_approval"}, // 2, 7
		{"delete", `{"path":"src/x","recursive":false}`, "require_approval"}, // 3
		{"bash", `{"command":"sed -n '0~3w /etc/x' a"}`, "require_approval"}, // 4
		{"bash", `{"command":"cat ../ws/.[!x]nv"}`, "require_approval"},      // 5
		{"bash", `{"command":"GOCACHEPROG=./x cat a"}`, "require_approval"},  // 6
		{"web_fetch", `{"url":"https://example.com.evil.net/"}`, "require_approval"},
		{"web_fetch", `{"url":"https://example.com/doc"}`, "approve"},
		{"bash", `{"command":"make -j4 release"}`, "deny"},
		{"write", `{"path":"src/.git","content":"gitdir: /tmp"}`, "require_approval"},
		{"bash", `{"command":"cat a.txt"}`, "approve"},
	} {
		var out, errOut bytes.Buffer
		if code := runPolicy([]string{"check", c.tool, c.input, "--file", doc, "--config", cfg}, &out, &errOut); code != 0 {
			t.Fatalf("%s %s: exit %d: %s", c.tool, c.input, code, errOut.String())
		}
		if got := strings.TrimSpace(strings.SplitN(out.String(), "\n", 2)[0]); got != c.want {
			t.Errorf("%s %s: got %s, want %s\n%s", c.tool, c.input, got, c.want, out.String())
		}
	}
}

package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// A writable set with thousands of files whose other names are outside it
// (a local git clone in /tmp: its objects are hard links) would need more
// mounts than bubblewrap takes ("argument list too long", then its limit of
// 9,000 options): they are masked a directory at a time, and bash runs.
func TestSandboxFoldsThousandsOfMaskedFilesIntoTheirDirectories(t *testing.T) {
	requireSandbox(t)
	env := sandboxEnv(t)
	outside := t.TempDir()
	for d := range 8 {
		for f := range 500 {
			name := fmt.Sprintf("%02x/%038x", d, f)
			testfs.Write(t, filepath.Join(outside, name), "secret outside\n")
			inside := filepath.Join(env.Dir, "objects", name)
			if err := os.MkdirAll(filepath.Dir(inside), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(filepath.Join(outside, name), inside); err != nil {
				t.Fatal(err)
			}
		}
	}
	script := fmt.Sprintf(`grep -q secret objects/03/%038x 2>/dev/null && echo leaked || echo masked
echo in > inside.txt && echo inside-ok`, 7)
	res := run(t, env, "bash", map[string]any{"command": script})
	wantText(t, res, "masked\ninside-ok")
	if b, _ := os.ReadFile(filepath.Join(outside, "03", fmt.Sprintf("%038x", 7))); string(b) != "secret outside\n" {
		t.Errorf("the file outside changed: %q", b)
	}
}

// More .git directories than bubblewrap can mount read-only cannot be
// folded without making the files around them read-only too: the call is
// refused with the count and what to do, and nothing runs.
func TestSandboxRefusesMoreRepositoriesThanItCanMount(t *testing.T) {
	requireSandbox(t)
	env := sandboxEnv(t)
	const repos = 3000
	for i := range repos {
		if err := os.MkdirAll(filepath.Join(env.Dir, fmt.Sprintf("r%04d", i), ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(env.Dir, "ran")
	res := run(t, env, "bash", map[string]any{"command": "touch " + marker})
	if !res.IsError || !strings.HasPrefix(res.Text, fmt.Sprintf("Sandbox unavailable, command not run: the writable set has %d .git directories", repos)) {
		t.Errorf("got %q", res.Text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The frontmatter is evaluated outside the parser (package frontmatter):
// check and parse --json still report what its evaluation found.
func TestRunCheckAndParseReportFrontmatterErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fm.chat")
	os.WriteFile(path, []byte("```lua\nflemma.opt.x = = 1\n```\n@You:\nhi\n"), 0o644)
	var out, errOut bytes.Buffer
	if code := runCheck([]string{path}, &out, &errOut); code != 1 || !strings.Contains(out.String(), path+":2:1: error: Frontmatter error: ") {
		t.Fatalf("check: exit %d: %q %s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := runParse([]string{"--json", path}, &out, &errOut); code != 0 || !strings.Contains(out.String(), `"frontmatter-error"`) {
		t.Fatalf("parse --json: exit %d: %s %s", code, out.String(), errOut.String())
	}
}

package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFullOutputPath(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"a\nb\n\n[Showing lines 3-2003 of 2003. Full output: /tmp/chatls-out-1.txt]", "/tmp/chatls-out-1.txt"},
		{"x\n\n[Showing lines 1-10 of 99. Full output: /tmp/o.txt]\n[The saved file holds only the first 64 MB of 2 GB.]", "/tmp/o.txt"},
		{"[Showing lines 1-50 of 80. Use offset=51 to continue.]", ""},
		{"the model wrote . Full output: /etc/passwd] in prose", ""},
		{"", ""},
	} {
		if got := FullOutputPath(c.content); got != c.want {
			t.Errorf("FullOutputPath(%q) = %q, want %q", c.content, got, c.want)
		}
	}
}

func TestSaveOutput(t *testing.T) {
	dir := t.TempDir()
	path, err := SaveOutput(dir, "urn:flemma:tool:read/../x", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir || strings.Contains(filepath.Base(path), "/") {
		t.Fatalf("saved outside %s: %s", dir, path)
	}
	if data, _ := os.ReadFile(path); string(data) != "hello" {
		t.Fatalf("saved %q", data)
	}
	if _, err := SaveOutput(filepath.Join(dir, "missing"), "t", "x"); err == nil {
		t.Fatal("no error for a directory that does not exist")
	}
}

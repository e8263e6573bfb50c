package session

import (
	"os"
	"path/filepath"
	"testing"
)

// A whole-workspace checkpoint is not taken where the workspace is the
// home directory, above it, or /: the first would hash all of it.
func TestTooWideToRecord(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	project := filepath.Join(home, "src", "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	for root, want := range map[string]bool{"/": true, home: true, filepath.Dir(home): true, project: false, filepath.Join(home, "src"): false} {
		if got := tooWideToRecord(root); got != want {
			t.Errorf("tooWideToRecord(%s) = %v, want %v", root, got, want)
		}
	}
}

// Package testfs writes the files tests need.
package testfs

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates path (and its directories) with text. It writes through a
// rename, as editors save, so a file watcher never reads half a file.
func Write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

package surface

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/chatls/chatls/chatdoc"
)

func TestFileRefCheckerFlagsMissingFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes", "a.md"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := chatdoc.Parse("@You:\nCompare @./notes/a.md with @./notes/b.md and @../gone.txt.\n")
	c := &FileRefChecker{TTL: time.Second}
	var got []string
	for _, d := range c.Diagnostics(doc, filepath.Join(dir)) {
		got = append(got, d.Code+" "+d.Message+" "+doc.Slice(d.Span.Start, d.Span.End))
	}
	want := []string{
		"missing-file-reference File not found: ./notes/b.md @./notes/b.md",
		"missing-file-reference File not found: ../gone.txt @../gone.txt",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if d := c.Diagnostics(doc, ""); d != nil {
		t.Errorf("an unsaved buffer has no directory to resolve against, got %v", d)
	}
}

// Each file is stat'ed once per TTL, however often diagnostics run and
// however often the document names it.
func TestFileRefCheckerReusesStatsForTTL(t *testing.T) {
	clock := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	stats := map[string]int{}
	exists := map[string]bool{}
	c := &FileRefChecker{
		TTL: 2 * time.Second,
		Now: func() time.Time { return clock },
		Stat: func(path string) (os.FileInfo, error) {
			stats[path]++
			if exists[path] {
				return nil, nil
			}
			return nil, os.ErrNotExist
		},
	}
	doc := chatdoc.Parse("@You:\n@./a.txt @./a.txt\n\n@Assistant:\nok\n\n@You:\nagain @./a.txt\n")
	for range 5 {
		if n := len(c.Diagnostics(doc, "/d")); n != 3 {
			t.Fatalf("%d diagnostics, want 3 (every reference to the missing file)", n)
		}
	}
	if stats["/d/a.txt"] != 1 {
		t.Errorf("stat called %d times within the TTL, want 1", stats["/d/a.txt"])
	}
	exists["/d/a.txt"] = true // the user creates the file
	clock = clock.Add(1999 * time.Millisecond)
	if n := len(c.Diagnostics(doc, "/d")); n != 3 {
		t.Errorf("within the TTL the cached answer stands, got %d diagnostics", n)
	}
	clock = clock.Add(time.Millisecond)
	if n := len(c.Diagnostics(doc, "/d")); n != 0 {
		t.Errorf("after the TTL the file exists, got %d diagnostics", n)
	}
	if stats["/d/a.txt"] != 2 {
		t.Errorf("stat called %d times, want 2", stats["/d/a.txt"])
	}
}

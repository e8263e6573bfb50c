package journal

import "testing"

// An issue recorded by one chatls is seen by another on the same journal
// (the editor's and the terminal's), the newest hash winning, and survives
// a reopen; another document's placeholder with the same ID is not it.
func TestIssuedPlaceholdersAreSharedAndKept(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.IssuedFor("/d.chat", "t1"); ok {
		t.Fatal("issued before anything was recorded")
	}
	if err := a.Issue("/d.chat", "t1", "h1"); err != nil {
		t.Fatal(err)
	}
	if err := a.Issue("/d.chat", "t1", "h2"); err != nil { // reissued after an input edit
		t.Fatal(err)
	}
	b.refreshed = b.refreshed.Add(-refreshEvery) // read what a appended now
	if h, ok := b.IssuedFor("/d.chat", "t1"); !ok || h != "h2" {
		t.Fatalf("other process sees %q %v, want h2", h, ok)
	}
	if _, ok := b.IssuedFor("/other.chat", "t1"); ok {
		t.Fatal("an issue of another document counted")
	}
	a.Close()
	b.Close()
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if h, ok := c.IssuedFor("/d.chat", "t1"); !ok || h != "h2" {
		t.Fatalf("after reopen %q %v, want h2", h, ok)
	}
}

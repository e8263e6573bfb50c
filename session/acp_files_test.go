package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/fileuri"
)

// An agent's fs/write_text_file to a file open in the editor changes the
// editor's buffer (workspace/applyEdit), not the disk: the user's unsaved
// text is what it replaces, what the agent reads back, and what a rewind
// of the write restores. An edit the editor refuses writes nothing and is
// the agent's error.
func TestAgentWriteOpenFile(t *testing.T) {
	ts := newTestSession(t, nil, "[tools]\nautoApprove = [\"write\", \"read\"]\n")
	d, _ := ts.open("work.chat", "@You:\nedit the notes\n")
	path := filepath.Join(ts.ws, "notes.txt")
	if err := os.WriteFile(path, []byte("saved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := fileuri.FromPath(path)
	ts.ed.mu.Lock()
	ts.ed.open(uri, chatdoc.Parse("saved\nunsaved line\n"))
	ts.ed.mu.Unlock()
	ts.s.OpenFile(uri, "saved\nunsaved line\n", 1)
	c := &agentClient{s: ts.s, ds: d}
	disk := func() string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}

	if err := c.WriteTextFile(t.Context(), path, "saved\nunsaved line\nthe agent's line\n"); err != nil {
		t.Fatal(err)
	}
	if got := ts.ed.text(uri); got != "saved\nunsaved line\nthe agent's line\n" {
		t.Fatalf("the buffer after the agent's write: %q", got)
	}
	if got := disk(); got != "saved\n" {
		t.Fatalf("the agent's write reached the disk of a file open in the editor: %q", got)
	}
	if got, err := c.ReadTextFile(t.Context(), path, 0, 0); err != nil || got != "saved\nunsaved line\nthe agent's line\n" {
		t.Fatalf("the agent reads back %q, %v", got, err)
	}

	calls, _, err := ts.s.checkpointed(t.Context(), d)
	if err != nil || len(calls) != 1 {
		t.Fatalf("checkpointed calls %v, %v; want the agent's write", calls, err)
	}
	for id := range calls {
		done, err := ts.s.Rewind(t.Context(), d, id, -1, false, false)
		if err != nil {
			t.Fatalf("rewind of %s: %v", id, err)
		}
		if len(done.InEditor) != 1 {
			t.Fatalf("the rewind did not go through the editor: %+v", done)
		}
	}
	if got := ts.ed.text(uri); got != "saved\nunsaved line\n" {
		t.Fatalf("the buffer after the rewind: %q; want the user's unsaved text back", got)
	}
	if got := disk(); got != "saved\n" {
		t.Fatalf("the disk after the rewind: %q", got)
	}

	ts.ed.mu.Lock()
	ts.ed.refuse = func(EditRequest) bool { return true }
	ts.ed.mu.Unlock()
	err = c.WriteTextFile(t.Context(), path, "lost?\n")
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("a write the editor refuses: %v", err)
	}
	if got := ts.ed.text(uri); got != "saved\nunsaved line\n" {
		t.Fatalf("the buffer after a refused write: %q", got)
	}
	if got := disk(); got != "saved\n" {
		t.Fatalf("a refused write went to the disk: %q", got)
	}
}

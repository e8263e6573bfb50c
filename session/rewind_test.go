package session

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/fileuri"
)

// agentRun is a session in which one approved bash call (toolu_w) changed
// a.txt, open in the editor, and b.txt, closed, and created c.txt.
type agentRun struct {
	*testSession
	d            *Doc
	uri, fileURI string
}

const agentScript = "printf 'agent a\\n' > a.txt; printf 'agent b\\n' > b.txt; printf 'new\\n' > c.txt"

func newAgentRun(t *testing.T) *agentRun {
	t.Helper()
	// No sandbox: what is checkpointed does not depend on bubblewrap here.
	ts := newTestSession(t, map[string]any{"sandbox": map[string]any{"enabled": false}}, "")
	for name, text := range map[string]string{"a.txt": "a0\n", "b.txt": "b0\n"} {
		if err := os.WriteFile(filepath.Join(ts.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, uri := ts.open("work.chat", pendingBash("toolu_w", agentScript))
	ts.ed.typeText(t, uri, "status=pending", "status=approved")
	ts.ed.waitText(t, uri, "**Tool Result:** `toolu_w`\n\n```\n")
	ts.ed.waitFor(t, "the call's after-state", func() bool {
		calls, _, err := ts.s.checkpointed(t.Context(), d)
		return err == nil && calls["toolu_w"].Finished
	})
	// a.txt is open in the editor, showing the agent's version (as after
	// the editor reloaded it).
	r := &agentRun{testSession: ts, d: d, uri: uri, fileURI: fileuri.FromPath(filepath.Join(ts.ws, "a.txt"))}
	r.openFile(r.fileURI, r.disk("a.txt"))
	return r
}

func (r *agentRun) openFile(uri, text string) {
	r.ed.mu.Lock()
	r.ed.open(uri, chatdoc.Parse(text))
	r.ed.mu.Unlock()
	r.s.OpenFile(uri, text, 1)
}

func (r *agentRun) disk(name string) string {
	data, err := os.ReadFile(filepath.Join(r.ws, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

func (r *agentRun) titles(offset int) []string {
	var out []string
	for _, o := range r.s.RewindOffers(r.t.Context(), r.d, r.s.latest(r.d), offset) {
		out = append(out, o.Title)
	}
	return out
}

func (r *agentRun) toolUseAt() int { return strings.Index(r.ed.text(r.uri), "**Tool Use:**") }

// "Rewind files to before this call": the open file changes in the
// editor's buffer through one workspace edit (its undo takes it back; the
// disk keeps the agent's version until the user saves), the closed one on
// disk, the created one goes; Undo rewind gives the agent's versions back,
// the open file again in the buffer.
func TestRewindFilesRestoresOpenFilesInTheEditorAndTheRestOnDisk(t *testing.T) {
	r := newAgentRun(t)
	at := r.toolUseAt()
	want := []string{RewindFilesTitle, RewindAllTitle, BranchTitle}
	if got := r.titles(at); !slices.Equal(got, want) {
		t.Errorf("actions at the tool use: %q, want %q", got, want)
	}
	hover := r.s.RewindHover(t.Context(), r.d, r.s.latest(r.d), r.s.latest(r.d).ToolUse("toolu_w"))
	for _, line := range []string{"**Rewind files to before this call** takes back this call:", "- restored `a.txt` (in the editor)\n", "- restored `b.txt`\n", "- removed `c.txt`\n"} {
		if !strings.Contains(hover, line) {
			t.Errorf("hover lacks %q:\n%s", line, hover)
		}
	}

	before := len(r.ed.edits)
	done, err := r.s.Rewind(t.Context(), r.d, "toolu_w", -1, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.ed.text(r.fileURI); got != "a0\n" {
		t.Errorf("a.txt's buffer = %q, want a0", got)
	}
	if r.disk("a.txt") != "agent a\n" || r.disk("b.txt") != "b0\n" || !strings.Contains(r.disk("c.txt"), "no such file") {
		t.Errorf("disk after the rewind: a=%q b=%q c=%q; want a as the agent left it (open: the editor has it), b0, c removed", r.disk("a.txt"), r.disk("b.txt"), r.disk("c.txt"))
	}
	edits := r.ed.edits[before:]
	if len(edits) != 1 || edits[0].URI != "" || len(edits[0].Files) != 1 || edits[0].Files[0].URI != r.fileURI {
		t.Fatalf("edits sent: %+v, want one workspace edit of a.txt only", edits)
	}
	if !slices.Equal(done.InEditor, []string{r.path("a.txt")}) || len(done.Conflicts) != 0 || done.UndoID == "" {
		t.Errorf("rewound %+v", done)
	}
	if got := r.ed.text(r.uri); !strings.Contains(got, "**Tool Use:** `bash` (`toolu_w`)") {
		t.Errorf("the conversation changed:\n%s", got)
	}
	if got := r.titles(at); !slices.Contains(got, UndoRewindTitle) {
		t.Errorf("actions after the rewind: %q, want %q too", got, UndoRewindTitle)
	}

	if _, err := r.s.UndoRewind(t.Context(), r.d, false); err != nil {
		t.Fatal(err)
	}
	if got := r.ed.text(r.fileURI); got != "agent a\n" {
		t.Errorf("a.txt's buffer after the undo = %q, want the agent's version", got)
	}
	if r.disk("b.txt") != "agent b\n" || r.disk("c.txt") != "new\n" {
		t.Errorf("disk after the undo: b=%q c=%q, want the agent's versions", r.disk("b.txt"), r.disk("c.txt"))
	}
}

func (r *agentRun) path(name string) string {
	p, _ := filepath.EvalSymlinks(filepath.Join(r.ws, name))
	return p
}

// Files the user changed since the call — on disk, or typed into an open
// buffer and not saved — are conflicts: named, left alone, and restored by
// the second action, whose title counts them.
func TestRewindLeavesConflictsThenOverwritesThem(t *testing.T) {
	r := newAgentRun(t)
	if err := os.WriteFile(filepath.Join(r.ws, "b.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.ed.typeText(t, r.fileURI, "agent a", "agent a and my typing")
	want := RewindFilesTitle + ", overwriting 2 files I changed"
	if got := r.titles(r.toolUseAt()); !slices.Contains(got, want) || !slices.Contains(got, RewindAllTitle+", overwriting 2 files I changed") {
		t.Errorf("actions with two conflicts: %q, want %q", got, want)
	}
	hover := r.s.RewindHover(t.Context(), r.d, r.s.latest(r.d), r.s.latest(r.d).ToolUse("toolu_w"))
	if !strings.Contains(hover, "- conflict `b.txt`: you changed it after the last call changed it") || !strings.Contains(hover, "- conflict `a.txt`") {
		t.Errorf("hover does not name the conflicts:\n%s", hover)
	}

	done, err := r.s.Rewind(t.Context(), r.d, "toolu_w", -1, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done.Conflicts, []string{r.path("a.txt"), r.path("b.txt")}) {
		t.Errorf("conflicts %q", done.Conflicts)
	}
	if r.ed.text(r.fileURI) != "agent a and my typing\n" || r.disk("b.txt") != "mine\n" || !strings.Contains(r.disk("c.txt"), "no such file") {
		t.Errorf("after the rewind: buffer a=%q b=%q c=%q; want the user's versions kept, c removed", r.ed.text(r.fileURI), r.disk("b.txt"), r.disk("c.txt"))
	}
	if msg := r.ed.messages[len(r.ed.messages)-1]; !strings.Contains(msg, "left alone because you changed them since: a.txt, b.txt") {
		t.Errorf("message %q does not name the files left alone", msg)
	}

	if _, err := r.s.Rewind(t.Context(), r.d, "toolu_w", -1, false, true); err != nil {
		t.Fatal(err)
	}
	if r.ed.text(r.fileURI) != "a0\n" || r.disk("b.txt") != "b0\n" {
		t.Errorf("after overwriting: buffer a=%q b=%q, want a0 and b0", r.ed.text(r.fileURI), r.disk("b.txt"))
	}
}

// "Rewind conversation and files to here": the later messages and the
// open file's restore are one workspace edit.
func TestRewindConversationIsOneEditWithTheOpenFiles(t *testing.T) {
	r := newAgentRun(t)
	text := r.ed.text(r.uri)
	before := len(r.ed.edits)
	done, err := r.s.Rewind(t.Context(), r.d, "toolu_w", -1, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.ed.text(r.uri), text[:strings.Index(text, "@Assistant:")]; got != want {
		t.Errorf("document after the rewind:\n%q\nwant:\n%q", got, want)
	}
	if done.Cut != 2 || r.ed.text(r.fileURI) != "a0\n" || r.disk("b.txt") != "b0\n" {
		t.Errorf("rewound %+v; a=%q b=%q", done, r.ed.text(r.fileURI), r.disk("b.txt"))
	}
	edits := r.ed.edits[before:]
	if len(edits) != 1 || edits[0].URI != r.uri || len(edits[0].Files) != 1 || edits[0].Files[0].URI != r.fileURI {
		t.Fatalf("edits sent: %d, want one with the document and a.txt: %+v", len(edits), edits)
	}
	// The tool use is gone; Undo rewind is offered at the markers left.
	if got := r.titles(0); !slices.Equal(got, []string{UndoRewindTitle}) {
		t.Errorf("actions at the first marker: %q", got)
	}
}

// "Branch conversation here" writes NAME.branch-1.chat with the messages
// before the call's and touches nothing else.
func TestBranchWritesTheMessagesBeforeHere(t *testing.T) {
	r := newAgentRun(t)
	text := r.ed.text(r.uri)
	var branch RewindOffer
	for _, o := range r.s.RewindOffers(t.Context(), r.d, r.s.latest(r.d), r.toolUseAt()) {
		if o.Title == BranchTitle {
			branch = o
		}
	}
	name, err := r.s.Branch(r.d, branch.Message)
	if err != nil {
		t.Fatal(err)
	}
	if name != filepath.Join(r.ws, "work.branch-1.chat") {
		t.Errorf("branch %s", name)
	}
	if got := r.disk("work.branch-1.chat"); got != text[:strings.Index(text, "@Assistant:")] {
		t.Errorf("branch holds %q", got)
	}
	if r.ed.text(r.uri) != text || r.disk("b.txt") != "agent b\n" || r.disk("c.txt") != "new\n" {
		t.Error("branching changed the document or a file")
	}
}

// A branch is a conversation of its own: an agent session remembered for
// its path (an earlier branch of that name, since deleted) is forgotten,
// and the document's own session stays remembered.
func TestBranchForgetsAnAgentSessionOfItsPath(t *testing.T) {
	r := newAgentRun(t)
	branchPath := filepath.Join(r.ws, "work.branch-1.chat")
	store := r.s.agentSessions()
	store.put(branchPath, "agent", "sess-old-branch")
	store.put(r.d.journalKey(), "agent", "sess-doc")
	name, err := r.s.Branch(r.d, 1)
	if err != nil || name != branchPath {
		t.Fatalf("branch %s: %v", name, err)
	}
	if got := store.get(branchPath, "agent"); got != "" {
		t.Errorf("the branch would go on in session %s", got)
	}
	if got := store.get(r.d.journalKey(), "agent"); got != "sess-doc" {
		t.Errorf("the document's session is %q after branching, want sess-doc", got)
	}
}

// replaceEdit changes only the middle that differs, never inside a
// character or a CRLF.
func TestReplaceEdit(t *testing.T) {
	for _, tt := range []struct{ old, new string }{
		{"abc\n", "abd\n"}, {"a\r\nb", "a\nb"}, {"héllo", "hèllo"}, {"", "x"}, {"x", ""}, {"same\n", "same\n"}, {"ab\r\n", "ab\r\nc\r\n"},
	} {
		e, changed := replaceEdit(tt.old, tt.new)
		if changed != (tt.old != tt.new) {
			t.Errorf("%q → %q: changed = %v", tt.old, tt.new, changed)
			continue
		}
		if !changed {
			continue
		}
		if got := chatdoc.ApplyEdits(tt.old, []chatdoc.TextEdit{e}); got != tt.new {
			t.Errorf("%q → %q: the edit %+v gives %q", tt.old, tt.new, e, got)
		}
		if !utf8Boundary(tt.old, e.Span.Start) || !utf8Boundary(tt.old, e.Span.End) {
			t.Errorf("%q → %q: the edit %+v cuts a character or a CRLF", tt.old, tt.new, e)
		}
	}
}

func utf8Boundary(s string, i int) bool {
	if i == 0 || i == len(s) {
		return true
	}
	return s[i]&0xC0 != 0x80 && !(s[i-1] == '\r' && s[i] == '\n')
}

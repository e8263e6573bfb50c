package rewind

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fourStates runs three calls of a document — a file tool, a bash call, a
// file tool — and returns the tree before each and after the last.
func fourStates(t *testing.T) (a *agent, ids []string, states []map[string]string) {
	root := newRepo(t, map[string]string{"main.go": "v0\n", "util.go": "u0\n", "doc/readme": "r0\n"})
	a = newAgent(t, newStore(t, Options{}), root)
	states = append(states, tree(t, root))
	ids = append(ids, a.write(map[string]string{"main.go": "v1\n", "new.go": "n1\n"}))
	states = append(states, tree(t, root))
	ids = append(ids, a.bash(`echo v2 > main.go; rm -r doc; echo u2 > util.go; chmod +x util.go`))
	states = append(states, tree(t, root))
	ids = append(ids, a.write(map[string]string{"new.go": "n3\n", "doc/readme": "r3\n"}))
	states = append(states, tree(t, root))
	return a, ids, states
}

func TestRewindToEachCall(t *testing.T) {
	t.Parallel()
	for k := range 3 {
		t.Run("to call "+string(rune('1'+k)), func(t *testing.T) {
			t.Parallel()
			a, ids, states := fourStates(t)
			a.rewind(ids[k], ApplyOptions{})
			if diff := cmp.Diff(states[k], tree(t, a.root)); diff != "" {
				t.Errorf("tree after rewinding to before call %d (-want +got):\n%s", k+1, diff)
			}
		})
	}
}

// Rewinding step by step, newest first, passes through every state; the
// rewinds themselves are calls of the document, so each later rewind
// also takes back the one before it without calling it a conflict.
func TestRewindStepByStepThenAllTheWayBack(t *testing.T) {
	t.Parallel()
	a, ids, states := fourStates(t)
	for k := 2; k >= 0; k-- {
		p := a.plan(ids[k])
		if p.Conflicts() != 0 {
			t.Errorf("rewind to call %d: %d conflicts, want none: %v", k+1, p.Conflicts(), changes(a.root, p))
		}
		if _, err := a.s.Apply(testCtx(t), p, ApplyOptions{}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(states[k], tree(t, a.root)); diff != "" {
			t.Fatalf("tree after rewinding to before call %d (-want +got):\n%s", k+1, diff)
		}
	}
	calls, err := a.s.List(testCtx(t), a.doc)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, c.ID+" "+c.RewindTo)
	}
	want := []string{"toolu_01 ", "toolu_02 ", "toolu_03 ", "rewind-1 toolu_03", "rewind-2 toolu_02", "rewind-3 toolu_01"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestUserEditAfterTheLastCallIsAConflict(t *testing.T) {
	t.Parallel()
	a, ids, states := fourStates(t)
	writeFiles(t, a.root, map[string]string{"main.go": "mine\n"})
	p := a.plan(ids[1])
	want := []string{"restore doc/readme", "!restore main.go", "restore new.go", "restore util.go"}
	if diff := cmp.Diff(want, changes(a.root, p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	for _, c := range p.Changes {
		if c.Conflict && !strings.Contains(c.Reason, "you changed it") {
			t.Errorf("conflict reason %q does not say the user changed it", c.Reason)
		}
	}
	applied, err := a.s.Apply(testCtx(t), p, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(a.root, "main.go")}, applied.Conflicts); diff != "" {
		t.Errorf("conflicts left alone (-want +got):\n%s", diff)
	}
	want1 := maps.Clone(states[1])
	want1["main.go"] = "file 0 mine\n"
	if diff := cmp.Diff(want1, tree(t, a.root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}

	// The second action: overwriting the files I changed.
	a.rewind(ids[1], ApplyOptions{Overwrite: true})
	if diff := cmp.Diff(states[1], tree(t, a.root)); diff != "" {
		t.Errorf("tree after the overwriting rewind (-want +got):\n%s", diff)
	}
}

func TestUndoRewindBringsTheAgentsVersionBack(t *testing.T) {
	t.Parallel()
	a, ids, states := fourStates(t)
	applied := a.rewind(ids[0], ApplyOptions{})
	last, err := a.s.LastRewind(testCtx(t), a.doc)
	if err != nil || last != applied.UndoID || last == "" {
		t.Fatalf("LastRewind = %q, %v; want %q", last, err, applied.UndoID)
	}
	undone, err := a.s.Undo(testCtx(t), a.doc, applied.UndoID, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(states[3], tree(t, a.root)); diff != "" {
		t.Errorf("tree after undoing the rewind (-want +got):\n%s", diff)
	}
	// And the undo is a rewind too: undoing it rewinds again.
	if _, err := a.s.Undo(testCtx(t), a.doc, undone.UndoID, ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(states[0], tree(t, a.root)); diff != "" {
		t.Errorf("tree after undoing the undo (-want +got):\n%s", diff)
	}
	if _, err := a.s.Undo(testCtx(t), a.doc, ids[0], ApplyOptions{}); err == nil {
		t.Error("Undo of a call that is not a rewind succeeded")
	}
}

// Files open in the editor are the caller's: Apply leaves them and the
// plan carries their content for workspace/applyEdit.
func TestSkippedFilesAreLeftToTheCaller(t *testing.T) {
	t.Parallel()
	a, ids, states := fourStates(t)
	mainGo := filepath.Join(a.root, "main.go")
	p := a.plan(ids[0])
	applied, err := a.s.Apply(testCtx(t), p, ApplyOptions{Skip: func(path string) bool { return path == mainGo }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{mainGo}, applied.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	for _, c := range p.Changes {
		if c.Path == mainGo && string(c.Content) != "v0\n" {
			t.Errorf("main.go's change carries %q, want the checkpointed text", c.Content)
		}
	}
	if got, _ := os.ReadFile(mainGo); string(got) != "v2\n" {
		t.Errorf("main.go = %q: Apply changed a skipped file", got)
	}
	want := maps.Clone(states[0])
	want["main.go"] = states[3]["main.go"]
	if diff := cmp.Diff(want, tree(t, a.root)); diff != "" {
		t.Errorf("tree after the rewind (-want +got):\n%s", diff)
	}
}

// A call whose After never came (chatls stopped while bash ran) is closed
// by Plan with what is on disk, and rewinds like any other.
func TestUnfinishedCallIsClosedByPlan(t *testing.T) {
	t.Parallel()
	root := newRepo(t, map[string]string{"a.txt": "a\n"})
	s := newStore(t, Options{})
	a := newAgent(t, s, root)
	sc := Scope{Root: root, Doc: a.doc, ID: "toolu_crashed"}
	if _, err := s.Checkpoint(testCtx(t), sc); err != nil {
		t.Fatal(err)
	}
	sh(t, root, "echo b > a.txt")
	calls, err := s.List(testCtx(t), a.doc)
	if err != nil || len(calls) != 1 || calls[0].Finished {
		t.Fatalf("List = %+v, %v; want one unfinished call", calls, err)
	}
	a.rewind(sc.ID, ApplyOptions{})
	if got := tree(t, root)["a.txt"]; got != "file 0 a\n" {
		t.Errorf("a.txt = %q after the rewind, want its text before the call", got)
	}
}

// A file open in an editor is planned against its buffer: unsaved typing
// is a conflict; a rewind that the caller carries out in the buffer is
// recorded as the buffer had it and as the caller leaves it, so that Undo
// (planned on the buffers again) gives the buffer the agent's text back.
func TestBuffersArePlannedAndUndoneLikeFiles(t *testing.T) {
	t.Parallel()
	a, ids, _ := fourStates(t)
	mainGo := filepath.Join(a.root, "main.go")
	buffer := "v2\n" // what the editor shows: the agent's version
	buffers := func(path string) ([]byte, bool) { return []byte(buffer), path == mainGo }
	skip := func(path string) bool { return path == mainGo }

	buffer = "v2 and my unsaved typing\n"
	p, err := a.s.PlanWith(testCtx(t), a.doc, ids[0], buffers)
	if err != nil {
		t.Fatal(err)
	}
	if got := changes(a.root, p); !slices.Contains(got, "!restore main.go") {
		t.Errorf("plan with a typed-into buffer: %v, want main.go as a conflict", got)
	}

	buffer = "v2\n"
	p, err = a.s.PlanWith(testCtx(t), a.doc, ids[0], buffers)
	if err != nil {
		t.Fatal(err)
	}
	applied, err := a.s.Apply(testCtx(t), p, ApplyOptions{Skip: skip, Buffers: buffers})
	if err != nil || applied.UndoID == "" || !slices.Equal(applied.Skipped, []string{mainGo}) {
		t.Fatalf("Apply = %+v, %v", applied, err)
	}
	buffer = "v0\n" // the caller's edit of the buffer, not saved
	up, err := a.s.PlanWith(testCtx(t), a.doc, applied.UndoID, buffers)
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(up.Changes, func(c Change) bool { return c.Path == mainGo }); i < 0 || up.Changes[i].Conflict || string(up.Changes[i].Content) != "v2\n" {
		t.Errorf("the undo's plan: %v, want main.go back to the agent's v2", changes(a.root, up))
	}
	undone, err := a.s.Undo(testCtx(t), a.doc, applied.UndoID, ApplyOptions{Skip: skip, Buffers: buffers})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(undone.Skipped, []string{mainGo}) || len(undone.Conflicts) != 0 {
		t.Fatalf("Undo = %+v: want main.go handed to the caller, no conflict", undone)
	}
	if got, _ := os.ReadFile(mainGo); string(got) != "v2\n" {
		t.Errorf("main.go on disk = %q: a skipped file was written", got)
	}
	if got := tree(t, a.root)["new.go"]; got != "file 0 n3\n" {
		t.Errorf("new.go = %q after the undo, want the agent's version back", got)
	}
}

// A buffer the editor never reloaded still shows the text before the
// calls: the file is planned on disk, as if it were not open.
func TestStaleBufferIsRestoredOnDisk(t *testing.T) {
	t.Parallel()
	a, ids, _ := fourStates(t)
	mainGo := filepath.Join(a.root, "main.go")
	p, err := a.s.PlanWith(testCtx(t), a.doc, ids[0], func(path string) ([]byte, bool) { return []byte("v0\n"), path == mainGo })
	if err != nil {
		t.Fatal(err)
	}
	if got := changes(a.root, p); !slices.Contains(got, "restore main.go") {
		t.Errorf("plan %v, want main.go restored (on disk: the buffer already shows v0)", got)
	}
}

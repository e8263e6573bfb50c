package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStreamsMessageAndThoughtChunksInOrder(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	if a.Info == nil || a.Info.Name != "chatls-test-agent" || !a.Caps.LoadSession {
		t.Fatalf("initialize: info %+v caps %+v", a.Info, a.Caps)
	}
	got, stop, err := prompt(t, a, newSession(t, a), "stream")
	if err != nil || stop != StopEndTurn {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	var kinds []string
	for _, u := range got {
		kinds = append(kinds, string(u.Kind))
	}
	want := "agent_thought_chunk agent_thought_chunk agent_message_chunk agent_message_chunk"
	if strings.Join(kinds, " ") != want {
		t.Errorf("kinds = %v, want %s", kinds, want)
	}
	if m := message(got, UpdateMessage); m != "Hello, world.\n@You: not a role\n" {
		t.Errorf("message = %q", m)
	}
	if th := message(got, UpdateThought); th != "The user wants a greeting." {
		t.Errorf("thought = %q", th)
	}
}

func TestInitializeAdvertisesFilesAndTerminals(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	got, _, err := prompt(t, a, newSession(t, a), "caps")
	if err != nil {
		t.Fatal(err)
	}
	if m := message(got, UpdateMessage); m != `{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"auth":{"terminal":false}}` {
		t.Errorf("the agent got client capabilities %s", m)
	}
	if a.Info.Version != "1.0.0" {
		t.Errorf("agent version = %q", a.Info.Version)
	}
}

func TestToolCallTwiceThenPermissionThenRead(t *testing.T) {
	for _, tc := range []struct {
		kind, want string
		read       bool
	}{
		{AllowOnce, `The file starts with "line one" (allow).`, true},
		{AllowAlways, `The file starts with "line one" (always).`, true},
		{RejectOnce, "I will not read it.", false},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			c := newTestClient(allowKind(tc.kind))
			a := startAgent(t, c, nil)
			file := filepath.Join(t.TempDir(), "notes.txt")
			os.WriteFile(file, []byte("line one\nline two\nline three\n"), 0o644)
			session := newSession(t, a)
			ctx, cancel := context.WithTimeout(context.Background(), testLimit)
			defer cancel()
			var got []Update
			var toolCallsBeforePermission int
			c.decide = func(ctx context.Context, req PermissionRequest) (string, bool, error) {
				// Requests wait for the updates before them: both tool_calls are in.
				toolCallsBeforePermission = len(got)
				return allowKind(tc.kind)(ctx, req)
			}
			stop, err := a.Prompt(ctx, session, []Block{{Text: "read " + file}}, func(u Update) { got = append(got, u) })
			if err != nil || stop != StopEndTurn {
				t.Fatalf("Prompt = %q, %v", stop, err)
			}
			if toolCallsBeforePermission != 2 {
				t.Errorf("the permission request came after %d updates, want 2 (both tool_calls)", toolCallsBeforePermission)
			}
			first, second := got[0].Tool, got[1].Tool
			if got[0].Kind != UpdateToolCall || got[1].Kind != UpdateToolCall || first.ID != second.ID {
				t.Fatalf("want two tool_calls for one ID, got %+v %+v", got[0], got[1])
			}
			if string(first.RawInput) != "{}" || string(second.RawInput) != `{"path":"`+file+`","limit":2}` {
				t.Errorf("raw inputs = %s then %s", first.RawInput, second.RawInput)
			}
			if len(second.Locations) != 1 || second.Locations[0] != (Location{Path: file, Line: 1}) {
				t.Errorf("locations = %+v", second.Locations)
			}
			p := c.permissions[0]
			if p.SessionID != session || p.ToolCall.ID != first.ID || p.ToolCall.Kind != "read" || len(p.Options) != 3 ||
				p.Options[1] != (Option{ID: "always", Name: "Allow always", Kind: AllowAlways}) {
				t.Errorf("permission request = %+v", p)
			}
			if m := message(got, UpdateMessage); m != tc.want {
				t.Errorf("message = %q, want %q", m, tc.want)
			}
			if (len(c.reads) == 1) != tc.read {
				t.Errorf("reads = %v", c.reads)
			}
			last := lastToolUpdate(got)
			if tc.read && (last.Status != "completed" || last.Content[0].Text != "line one\nline two\n") {
				t.Errorf("last tool update = %+v", last)
			}
			if !tc.read && last.Status != "failed" {
				t.Errorf("last tool update = %+v", last)
			}
		})
	}
}

func lastToolUpdate(us []Update) *ToolCall {
	var last *ToolCall
	for _, u := range us {
		if u.Kind == UpdateToolCallUpdate {
			last = u.Tool
		}
	}
	return last
}

func TestWriteTextFileAndDiff(t *testing.T) {
	c := newTestClient(allowKind(AllowOnce))
	a := startAgent(t, c, nil)
	file := filepath.Join(t.TempDir(), "hello.txt")
	os.WriteFile(file, []byte("hello world\n"), 0o644)
	got, _, err := prompt(t, a, newSession(t, a), "write "+file)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "hello ACP\n" {
		t.Errorf("file = %q", b)
	}
	d := lastToolUpdate(got).Content[0].Diff
	if d == nil || d.Path != file || *d.OldText != "hello world\n" || d.NewText != "hello ACP\n" {
		t.Errorf("diff = %+v", d)
	}
}

func TestTerminalCreateWaitOutputRelease(t *testing.T) {
	c := newTestClient(allowKind(AllowOnce))
	a := startAgent(t, c, nil)
	got, _, err := prompt(t, a, newSession(t, a), "terminal")
	if err != nil {
		t.Fatal(err)
	}
	if m := message(got, UpdateMessage); m != `Exit 0, output "hi\nthere\n".` {
		t.Errorf("message = %q", m)
	}
	if len(c.lines) != 1 || c.lines[0] != "echo hi; echo there" {
		t.Errorf("shell lines = %q", c.lines)
	}
	if len(c.terminals) != 0 {
		t.Errorf("terminals not released: %v", c.terminals)
	}
	var terminalID string
	for _, u := range got {
		if u.Kind == UpdateToolCallUpdate && len(u.Tool.Content) > 0 {
			terminalID = u.Tool.Content[0].TerminalID
		}
	}
	if terminalID != "term-1" {
		t.Errorf("terminal content = %q", terminalID)
	}
	if out := lastToolUpdate(got).RawOutput; string(out) != `{"exitCode":0}` {
		t.Errorf("raw output = %s", out)
	}
}

func TestPlanUsageAndOtherUpdates(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	session := newSession(t, a)

	got, _, err := prompt(t, a, session, "plan")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Kind != UpdatePlan || got[2].Plan[0] != (PlanEntry{Content: "Read the code", Status: "completed", Priority: "high"}) {
		t.Errorf("plan updates = %+v", got)
	}

	got, _, err = prompt(t, a, session, "usage")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Usage == nil || *got[1].Usage != (Usage{ContextUsed: 1200, ContextSize: 200000, Cost: 0.25, Currency: "USD"}) {
		t.Fatalf("usage_update = %+v", got)
	}
	if u := got[2].Usage; got[2].Kind != UpdateUsage || u == nil || u.InputTokens != 100 || u.OutputTokens != 20 || u.CacheReadTokens != 10 || u.TotalTokens != 130 {
		t.Errorf("turn usage = %+v", got[2])
	}

	got, _, err = prompt(t, a, session, "other")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != UpdateOther || got[0].Name != "available_commands_update" || !json.Valid(got[0].Raw) {
		t.Errorf("other = %+v", got)
	}
}

func TestFileReferencesGoAsResourceLinks(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()
	var got []Update
	_, err := a.Prompt(ctx, newSession(t, a), []Block{{Text: "echo"}, {Path: "/src/main go.go", MimeType: "text/x-go"}},
		func(u Update) { got = append(got, u) })
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"text":"echo","type":"text"},{"mimeType":"text/x-go","name":"main go.go","uri":"file:///src/main%20go.go","type":"resource_link"}]`
	if m := message(got, UpdateMessage); m != want {
		t.Errorf("the agent got %s\nwant %s", m, want)
	}
	if _, err := a.Prompt(ctx, "x", []Block{{Path: "rel.go"}}, func(Update) {}); err == nil || !strings.Contains(err.Error(), "not absolute") {
		t.Errorf("relative file reference: %v", err)
	}
}

func TestSessionLoadAndFallback(t *testing.T) {
	state := t.TempDir()
	env := map[string]string{"ACP_TEST_STATE": state}
	ctx, cancel := context.WithTimeout(context.Background(), testLimit)
	defer cancel()

	first := startAgent(t, newTestClient(allowKind(AllowOnce)), env)
	s, err := first.Session(ctx, t.TempDir(), "")
	if err != nil || s.Loaded || s.LoadError != nil {
		t.Fatalf("new session = %+v, %v", s, err)
	}
	if _, _, err := prompt(t, first, s.ID, "remember the blue door"); err != nil {
		t.Fatal(err)
	}
	first.Close()

	second := startAgent(t, newTestClient(allowKind(AllowOnce)), env)
	again, err := second.Session(ctx, t.TempDir(), s.ID)
	if err != nil || !again.Loaded || again.ID != s.ID {
		t.Fatalf("load = %+v, %v", again, err)
	}
	got, _, err := prompt(t, second, again.ID, "recall")
	if err != nil {
		t.Fatal(err)
	}
	if m := message(got, UpdateMessage); m != "You said: remember the blue door" {
		t.Errorf("recall = %q (the replayed history must not reach this turn)", m)
	}

	lost, err := second.Session(ctx, t.TempDir(), "sess-unknown")
	if err != nil || lost.Loaded || lost.ID == "" || lost.LoadError == nil || !strings.Contains(lost.LoadError.Error(), "could not load session sess-unknown") {
		t.Errorf("failed load = %+v, %v", lost, err)
	}

	noLoad := startAgent(t, newTestClient(allowKind(AllowOnce)), map[string]string{"ACP_TEST_NO_LOAD": "1"})
	s3, err := noLoad.Session(ctx, t.TempDir(), s.ID)
	if err != nil || s3.Loaded || s3.LoadError == nil || !strings.Contains(s3.LoadError.Error(), "no loadSession capability") {
		t.Errorf("agent without loadSession = %+v, %v", s3, err)
	}
	if _, err := noLoad.Session(ctx, "relative/dir", ""); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative cwd: %v", err)
	}
}

func TestCancelSendsSessionCancelAndWaits(t *testing.T) {
	a := startAgent(t, newTestClient(allowKind(AllowOnce)), nil)
	session := newSession(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	var got []Update
	stop, err := a.Prompt(ctx, session, []Block{{Text: "cancel"}}, func(u Update) {
		got = append(got, u)
		if u.Text == "Thinking hard" {
			cancel()
		}
	})
	if err != nil || stop != StopCancelled {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	if m := message(got, UpdateMessage); m != "Thinking hard… stopped." {
		t.Errorf("message = %q: the updates after session/cancel count too", m)
	}
	// The agent stays usable.
	if _, stop, err := prompt(t, a, session, "stream"); err != nil || stop != StopEndTurn {
		t.Errorf("after cancel: %q, %v", stop, err)
	}
}

func TestCancelAnswersPendingPermissionCancelled(t *testing.T) {
	asked := make(chan struct{})
	c := newTestClient(func(ctx context.Context, req PermissionRequest) (string, bool, error) {
		close(asked)
		<-ctx.Done() // the user never decides
		return "", false, ctx.Err()
	})
	a := startAgent(t, c, nil)
	session := newSession(t, a)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	var got []Update
	stop, err := a.Prompt(ctx, session, []Block{{Text: "cancelpermission"}}, func(u Update) { got = append(got, u) })
	if err != nil || stop != StopCancelled {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	if m := message(got, UpdateMessage); m != "permission: cancelled" {
		t.Errorf("message = %q", m)
	}
}

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// lastStatus is the newest chatls/status notice for uri.
func lastStatus(st *lspclient.State, uri string) (text string, fields map[string]any) {
	for _, e := range st.Events() {
		if e.Kind == "status" && e.URI == uri {
			text = e.Label
			fields = nil
			_ = json.Unmarshal(e.Data, &fields)
		}
	}
	return text, fields
}

// waitStatus waits until the newest status notice of uri contains want.
func (s *session) waitStatus(uri, want string) map[string]any {
	s.t.Helper()
	var fields map[string]any
	var text string
	err := s.c.WaitFor(15*time.Second, "status "+want, func(st *lspclient.State) bool {
		text, fields = lastStatus(st, uri)
		return strings.Contains(text, want)
	})
	if err != nil {
		s.t.Fatalf("%v; the last status: %q", err, text)
	}
	return fields
}

// One status, pushed: chatls/status follows the document through the cycle
// with the client's key names, and its counts are those the user sees —
// also after an undo takes a written result out again.
func TestStatusIsPushedAndAgreesWithTheDocument(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"keys": map[string]any{"advance": "<C-]>", "approve": `\y`},
	}}})
	unanswered := strings.Replace(bashDoc("echo one"), "\n\n@You:\n\n**Tool Result:** `toolu_m`\n\n```flemma:tool status=pending\n```\n", "\n", 1)
	uri := s.open("status.chat", unanswered)
	s.waitStatus(uri, "1 call without a placeholder (press <C-]> (next step))")

	s.advance(uri)
	fields := s.waitStatus(uri, `1 call waits for approval (press \y (approve))`)
	if fields["waiting"] != 1.0 || fields["running"] != 0.0 || fields["unanswered"] != 0.0 {
		t.Errorf("counts of the notice: %v", fields)
	}
	before := s.c.Doc(uri).Text

	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "```\none\n```")
	// The result is what goes to the model next.
	s.waitStatus(uri, "ready to send (press <C-]> (next step))")

	// Undo: the result goes, the pending placeholder is back. Nothing runs
	// (the tool ran once), and the status says so rather than asking for an
	// approval that would not run it.
	if err := s.c.ReplaceAll(s.ctx, uri, before); err != nil {
		t.Fatal(err)
	}
	fields = s.waitStatus(uri, "1 call already ran (press <C-]> (next step) to write the result)")
	if fields["running"] != 0.0 || fields["waiting"] != 0.0 || fields["alreadyRan"] != 1.0 {
		t.Errorf("after the undo nothing runs or waits, the notice says %v", fields)
	}
	// The next step writes what the journal recorded, without running again.
	s.advance(uri)
	s.waitText(uri, "the tool was not run again")
	s.waitStatus(uri, "ready to send")
}

// The one action that inserts placeholders: no second quick fix doing the
// same with another title.
func TestOneInsertPlaceholdersAction(t *testing.T) {
	two := "@You:\nhi\n\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"echo a\"}\n```\n\n**Tool Use:** `bash` (`t2`)\n\n```json\n{\"command\":\"echo b\"}\n```\n"
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}})
	uri := s.open("one.chat", two)
	s.settle(uri)
	var inserts []string
	for _, a := range s.codeActions(uri, "**Tool Use:** `bash` (`t2`)") {
		if strings.HasPrefix(a.Title, "Insert") {
			inserts = append(inserts, a.Title)
		}
	}
	if len(inserts) != 1 || inserts[0] != "Insert approval placeholders" {
		t.Errorf("insert actions %q, want exactly [Insert approval placeholders]", inserts)
	}
}

// Helix 25.07 names the document by %{buffer_name}, a path relative to its
// working directory: chatls.advance finds the one open document with it.
func TestAdvanceByRelativePath(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("notes.chat", strings.Replace(bashDoc("echo x"), "\n\n@You:\n\n**Tool Result:** `toolu_m`\n\n```flemma:tool status=pending\n```\n", "\n", 1))
	if _, err := s.command("chatls.advance", map[string]any{"path": "notes.chat"}); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "```flemma:tool status=pending")
	if _, err := s.command("chatls.advance", map[string]any{"path": "other.chat"}); err == nil || !strings.Contains(err.Error(), "no open document at other.chat") {
		t.Errorf("an unknown path must be refused with its name, got %v", err)
	}
}

// What VS Code's progress shows, every status line shows: while the
// provider is overloaded the status says it retries (not "… is
// answering"), and after the answer it carries the answer's usage.
func TestStatusShowsRetriesAndTheLastAnswersUsage(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(529)
			io.WriteString(w, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi."},"finish_reason":null}]}`+"\n\n")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1200,"completion_tokens":34,"total_tokens":1234}}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	s := start(t, sessionOptions{userConfig: slowConfig(srv.URL + "/v1")})
	uri := s.open("retry.chat", "@You:\nhi\n")
	s.send(uri)
	s.waitStatus(uri, "m: Overloaded; retrying in 2 s (1/4)")
	s.waitText(uri, "@Assistant:\nHi.\n\n@You:\n\n")
	fields := s.waitStatus(uri, "— last answer: m · 1.2k in · 34 out")
	usage, _ := fields["usage"].(map[string]any)
	if usage["inputTokens"] != 1200.0 || usage["outputTokens"] != 34.0 || usage["model"] != "m" {
		t.Errorf("the notice's usage: %v", fields["usage"])
	}
}

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

// scriptConfig is a user config whose provider replays responses offline.
func scriptConfig(t *testing.T, responses string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "responses.json")
	testfs.Write(t, file, responses)
	return "provider = \"replay\"\n[providers.replay]\ntype = \"script\"\nfile = \"" + file + "\"\n"
}

// send starts a send (chatls.send) and fails the test if it is refused.
func (s *session) send(uri string) {
	s.t.Helper()
	out, err := s.command("chatls.send", map[string]any{"uri": uri})
	if err != nil || out["sending"] != true {
		s.t.Fatalf("chatls.send: %v %v", out, err)
	}
}

// usageLines reads the session's usage.jsonl.
func (s *session) usageLines() []map[string]any {
	s.t.Helper()
	f, err := os.Open(filepath.Join(s.state, "chatls", "usage.jsonl"))
	if err != nil {
		s.t.Fatalf("usage.jsonl: %v", err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			s.t.Fatalf("usage line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// The whole agent (SPEC §7): the question is sent, the answer streams in,
// its tool call is categorized and run by the policy, the result is
// written and the conversation sent again until the model is done — one
// chatls.send, the rest by autopilot.
func TestSendRunsTheWholeChain(t *testing.T) {
	responses := `{"responses": [
		{"text": "I'll read the notes.", "toolUses": [{"name": "read", "input": {"path": "notes.txt", "offset": null, "limit": null}}], "usage": {"InputTokens": 100, "OutputTokens": 20}},
		{"text": "They say: buy milk.", "usage": {"InputTokens": 150, "OutputTokens": 8}}
	]}`
	s := start(t, sessionOptions{userConfig: scriptConfig(t, responses)})
	testfs.Write(t, filepath.Join(s.ws, "notes.txt"), "Buy milk.\n")
	uri := s.open("agent.chat", "@You:\nWhat do my notes say?\n")
	out, err := s.command("chatls.send", map[string]any{"uri": uri})
	if err != nil || out["sending"] != true {
		t.Fatalf("chatls.send: %v %v", out, err)
	}
	s.waitText(uri, "They say: buy milk.")
	s.waitText(uri, "They say: buy milk.\n\n@You:\n\n")
	text := s.c.Doc(uri).Text
	want := "@You:\nWhat do my notes say?\n\n@Assistant:\nI'll read the notes.\n\n**Tool Use:** `read` (`script_1_1`)\n" +
		"```json\n{\"path\":\"notes.txt\",\"offset\":null,\"limit\":null}\n```\n\n@You:\n"
	if !strings.HasPrefix(text, want) {
		t.Fatalf("document:\n%s\nwant prefix:\n%s", text, want)
	}
	if !strings.Contains(text, "Buy milk.") || strings.Count(text, "@Assistant:") != 2 || strings.Contains(text, "status=") {
		t.Fatalf("the result was not written before the second send:\n%s", text)
	}
	// The usage line follows the answer's last edit.
	waitFileFor(t, filepath.Join(s.state, "chatls", "usage.jsonl"), "two responses", func(data []byte) bool { return strings.Count(string(data), "\n") >= 2 })
	lines := s.usageLines()
	if len(lines) != 2 || lines[0]["chain"] != lines[1]["chain"] || lines[0]["outcome"] != "ok" || lines[1]["inputTokens"] != 150.0 || lines[0]["provider"] != "replay" {
		t.Fatalf("usage.jsonl: %v", lines)
	}
	// A code lens on each answer's @Assistant: line, hover with the chain.
	// The usage line is written a moment before the answer's record that
	// the lens shows (the server then asks the editor to refresh its
	// lenses): asked right after the line, the second lens may not be there.
	var titles []string
	lensTitles := func() []string {
		var out []string
		for _, l := range s.codeLenses(uri) {
			if l.Command != nil {
				out = append(out, fmt.Sprintf("%d:%s", l.Range.Start.Line, l.Command.Title))
			}
		}
		return out
	}
	s.eventually("a lens on each answer", func() bool { titles = lensTitles(); return len(titles) >= 2 })
	if len(titles) != 2 || !strings.HasPrefix(titles[0], "3:script · 100 in · 20 out · ") || !strings.Contains(titles[1], ":script · 150 in · 8 out · ") {
		t.Fatalf("lenses %q", titles)
	}
	var hover struct {
		Contents struct {
			Value string `json:"value"`
		} `json:"contents"`
	}
	if err := s.c.Call(s.ctx, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 3, "character": 2}}, &hover); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(hover.Contents.Value, "**script** via `replay`") || !strings.Contains(hover.Contents.Value, "chain: 2 response(s)") {
		t.Errorf("hover %q", hover.Contents.Value)
	}
}

// Opening documents never sends, whatever they hold and with autopilot on:
// every corpus shape and a plain question, none sent.
func TestOpeningNeverSends(t *testing.T) {
	s := start(t, sessionOptions{userConfig: scriptConfig(t, `{"responses": [{"text": "should never appear"}]}`)})
	uris := []string{s.open("q.chat", "@You:\nA question nobody sent.\n")}
	names, err := filepath.Glob(filepath.Join("..", "chatdoc", "testdata", "corpus", "*.chat"))
	if err != nil || len(names) < 10 {
		t.Fatalf("corpus: %v %v", names, err)
	}
	for _, name := range names {
		uris = append(uris, s.open(filepath.Base(name), corpus(t, filepath.Base(name))))
	}
	for _, u := range uris {
		s.settle(u)
	}
	for _, u := range uris {
		if strings.Contains(s.c.Doc(u).Text, "should never appear") {
			t.Fatalf("opening sent %s", u)
		}
	}
	if _, err := os.Stat(filepath.Join(s.state, "chatls", "usage.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("a request was made: %v", err)
	}
}

// A send is refused with the reason while calls wait for approval.
func TestSendRefusedWhilePending(t *testing.T) {
	s := start(t, sessionOptions{userConfig: scriptConfig(t, `{"responses": [{"text": "no"}]}`)})
	uri := s.open("p.chat", twoCalls("rm -rf build", "notes.txt"))
	s.advance(uri)
	s.waitText(uri, "status=pending")
	_, err := s.command("chatls.send", map[string]any{"uri": uri})
	if err == nil || !strings.Contains(err.Error(), "1 tool call waits for approval") {
		t.Fatalf("err = %v", err)
	}
}

// slowChat is a Chat Completions server (the provider edge, the one fake)
// that streams part of an answer, then waits for release before the rest.
func slowChat(t *testing.T, release <-chan struct{}) (baseURL string, requests *atomic.Int32) {
	t.Helper()
	requests = &atomic.Int32{}
	chunk := func(delta string) string {
		return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}` + "\n\n"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk(`{"role":"assistant","content":"Hello"}`)+chunk(`{"content":" world"}`))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, chunk(`{"content":" again."}`))
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":4,"total_tokens":9}}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", requests
}

// streamingHalfway is a session whose document `name` is streaming an
// answer from slowChat, halfway: "Hello world" is in, the rest waits for
// release.
func streamingHalfway(t *testing.T, name string) (s *session, uri string, release chan struct{}, requests *atomic.Int32) {
	t.Helper()
	release = make(chan struct{})
	url, requests := slowChat(t, release)
	s = start(t, sessionOptions{userConfig: slowConfig(url)})
	uri = s.open(name, "@You:\nhi\n")
	s.send(uri)
	s.waitText(uri, "@Assistant:\nHello world")
	return s, uri, release, requests
}

func slowConfig(baseURL string) string {
	return "provider = \"slow\"\n[providers.slow]\ntype = \"openai-chat\"\nbaseURL = \"" + baseURL + "\"\nmodel = \"m\"\n"
}

// The user types while the answer streams — at the end of the document and
// inside the streaming message — and nothing is lost or duplicated: the
// message is found by its own marker, not by stale offsets (SPEC §7).
func TestTypingWhileTheAnswerStreams(t *testing.T) {
	s, uri, release, _ := streamingHalfway(t, "typing.chat")
	// At the very end, right after the streamed text.
	if err := appendText(s, uri, s.c.Doc(uri).Text, " my next question"); err != nil {
		t.Fatal(err)
	}
	// Inside the streaming message.
	if err := s.c.Replace(s.ctx, uri, "Hello world", "[note] Hello world"); err != nil {
		t.Fatal(err)
	}
	close(release)
	s.waitText(uri, "@You:\n\n")
	s.waitText(uri, "again.")
	want := "@You:\nhi\n\n@Assistant:\n[note] Hello world again.\n\n@You:\n\n my next question"
	if got := s.c.Doc(uri).Text; got != want {
		t.Fatalf("document:\n%q\nwant:\n%q", got, want)
	}
}

// Cancel closes the request and keeps what arrived, with the abort
// marker; the chain stops.
func TestCancelKeepsWhatArrived(t *testing.T) {
	s, uri, release, requests := streamingHalfway(t, "cancel.chat")
	defer close(release)
	out, err := s.command("chatls.cancel", map[string]any{"uri": uri})
	if err != nil || out["cancelled"] != true {
		t.Fatalf("cancel: %v %v", out, err)
	}
	s.waitText(uri, "Hello world\n\n<!-- flemma:aborted: Response interrupted by the user. -->\n\n@You:\n\n")
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests", n)
	}
}

// A request that fails before any content leaves the document as it was
// and says why, at the last @You: and as a message.
func TestFailureBeforeContentLeavesTheDocument(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(404)
		io.WriteString(w, `{"error":{"message":"The model 'nope' does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
	}))
	defer srv.Close()
	s := start(t, sessionOptions{userConfig: slowConfig(srv.URL + "/v1")})
	text := "@You:\nhi\n"
	uri := s.open("fail.chat", text)
	s.send(uri)
	d := s.waitDiagnostic(uri, "model m not found at slow")
	if d.Range.Start.Line != 0 {
		t.Errorf("diagnostic at line %d, want the @You: marker", d.Range.Start.Line)
	}
	s.settle(uri)
	if got := s.c.Doc(uri).Text; got != text {
		t.Fatalf("document changed: %q", got)
	}
}

// The guards stop a chain and say why, leaving the document ready to go on
// by hand: send.maxTurns, and the loop guard holding a call the model asks
// for a third time in a row at pending (SPEC §7).
func TestChainGuards(t *testing.T) {
	again := `{"text": "Once more.", "toolUses": [{"name": "read", "input": {"path": "notes.txt", "offset": null, "limit": null}}]}`
	responses := `{"responses": [` + again + `]}` // every turn asks the same
	cfg := scriptConfig(t, responses) + "[send]\nmaxTurns = 2\n"
	s := start(t, sessionOptions{userConfig: cfg})
	testfs.Write(t, filepath.Join(s.ws, "notes.txt"), "x\n")
	uri := s.open("turns.chat", "@You:\ngo\n")
	s.send(uri)
	s.waitDiagnostic(uri, "Autopilot stopped – exceeded 2 consecutive turns.")
	if n := strings.Count(s.c.Doc(uri).Text, "@Assistant:"); n != 2 {
		t.Fatalf("%d answers, want 2", n)
	}

	loop := start(t, sessionOptions{userConfig: scriptConfig(t, responses)})
	testfs.Write(t, filepath.Join(loop.ws, "notes.txt"), "x\n")
	uri = loop.open("loop.chat", "@You:\ngo\n")
	loop.send(uri)
	loop.waitText(uri, "`script_3_1`\n```flemma:tool status=pending")
	loop.settle(uri)
	text := loop.c.Doc(uri).Text
	if n := strings.Count(text, "@Assistant:"); n != 3 || strings.Count(text, "status=pending") != 1 {
		t.Fatalf("the third identical call must wait for the user:\n%s", text)
	}
	if d, trace := loop.explain(uri, "script_3_1"); d != "require_approval" || !strings.Contains(trace, "loop-guard") {
		t.Errorf("explain: %s\n%s", d, trace)
	}
}

// send.maxCost counts the chain's spending from usage.jsonl.
func TestChainCostLimit(t *testing.T) {
	again := `{"text": "More.", "toolUses": [{"name": "read", "input": {"path": "notes.txt", "offset": null, "limit": null}}], "usage": {"InputTokens": 1000000, "OutputTokens": 0}}`
	cfg := scriptConfig(t, `{"responses": [`+again+`]}`) +
		"[providers.replay.models.script]\nprice = { input = 1.5, output = 0 }\n[send]\nmaxCost = 2.0\n"
	s := start(t, sessionOptions{userConfig: cfg})
	testfs.Write(t, filepath.Join(s.ws, "notes.txt"), "x\n")
	uri := s.open("cost.chat", "@You:\ngo\n")
	s.send(uri)
	s.waitDiagnostic(uri, "Autopilot stopped – this chain cost $3.00, over the $2.00 limit.")
	if n := strings.Count(s.c.Doc(uri).Text, "@Assistant:"); n != 2 {
		t.Fatalf("%d answers, want 2", n)
	}
}

// A CRLF document gets CRLF from the stream too, and one blank line before
// the answer.
func TestSendKeepsCRLF(t *testing.T) {
	s := start(t, sessionOptions{userConfig: scriptConfig(t, `{"responses": [{"text": "Line one.\nLine two."}]}`)})
	uri := s.open("crlf.chat", "@You:\r\nhi\r\n\r\n")
	s.send(uri)
	s.waitText(uri, "@You:\r\n\r\n")
	want := "@You:\r\nhi\r\n\r\n@Assistant:\r\nLine one.\r\nLine two.\r\n\r\n@You:\r\n\r\n"
	if got := s.c.Doc(uri).Text; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// While the answer streams, a cancellable $/progress names the model;
// cancelling it from the editor's UI stops the request like chatls.cancel.
func TestProgressCancelStopsTheAnswer(t *testing.T) {
	s, uri, release, _ := streamingHalfway(t, "progress.chat")
	defer close(release)
	var token string
	for _, e := range s.c.Events() {
		var p struct {
			Token string `json:"token"`
			Value struct {
				Kind        string `json:"kind"`
				Title       string `json:"title"`
				Cancellable bool   `json:"cancellable"`
			} `json:"value"`
		}
		if e.Kind == "progress" && json.Unmarshal(e.Data, &p) == nil && p.Value.Kind == "begin" && p.Value.Title == "chatls: m" && p.Value.Cancellable {
			token = p.Token
		}
	}
	if token == "" {
		t.Fatal("no cancellable progress titled with the model")
	}
	if err := s.c.Notify(s.ctx, "window/workDoneProgress/cancel", map[string]any{"token": token}); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "<!-- flemma:aborted: Response interrupted by the user. -->")
}

// A send waits for loading tool sources, saying so in its progress, and
// goes out by itself with their tools once they are ready.
func TestSendWaitsForToolDefinitions(t *testing.T) {
	plugin, release := slowPlugin(t)
	bodies := make(chan []byte, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		bodies <- body
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	s := start(t, sessionOptions{userConfig: slowConfig(srv.URL + "/v1"), Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"plugins": []any{map[string]any{"name": "slow", "path": plugin}}},
	}}})
	uri := s.open("tools.chat", "@You:\nhi\n")
	out, err := s.command("chatls.send", map[string]any{"uri": uri})
	if err != nil || out["sending"] != true {
		t.Fatalf("chatls.send answers at once: %v %v", out, err)
	}
	if err := s.c.WaitFor(20*time.Second, "the waiting progress", func(st *lspclient.State) bool {
		for _, e := range st.Events() {
			if e.Kind == "progress" && strings.Contains(string(e.Data), "Waiting for tool definitions to load...") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-bodies:
		t.Fatalf("sent before the tools were known: %s", b)
	default:
	}
	if strings.Contains(s.c.Doc(uri).Text, "@Assistant:") {
		t.Fatal("the answer began before the request")
	}
	if err := os.WriteFile(release, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "@Assistant:\nok\n\n@You:\n\n")
	b := <-bodies
	if !strings.Contains(string(b), `"name":"slowtool"`) || !strings.Contains(string(b), `"name":"bash"`) {
		t.Fatalf("the request lacks the tools: %s", b)
	}
	if strings.Contains(string(b), `"name":"git_status"`) {
		t.Errorf("git tools offered outside a git repository")
	}
	// Inside a repository they are offered.
	if out, err := exec.Command("git", "init", "-q", s.ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	appendText(s, uri, s.c.Doc(uri).Text, "and now?\n")
	s.send(uri)
	if b := <-bodies; !strings.Contains(string(b), `"name":"git_status"`) || !strings.Contains(string(b), `"name":"git_push"`) {
		t.Errorf("git tools not offered inside a git repository")
	}
}

// A client that applies edits without answering (Vim's ALE) still gets
// the whole answer once, and the chain goes on.
func TestSendWithASilentClient(t *testing.T) {
	responses := `{"responses": [
		{"text": "Reading.", "toolUses": [{"name": "read", "input": {"path": "notes.txt", "offset": null, "limit": null}}]},
		{"text": "Done reading."}]}`
	s := start(t, sessionOptions{userConfig: scriptConfig(t, responses), Options: lspclient.Options{NeverReplyToApplyEdit: true},
		env: []string{"CHATLS_APPLY_EDIT_TIMEOUT=300ms"}})
	testfs.Write(t, filepath.Join(s.ws, "notes.txt"), "x\n")
	uri := s.open("silent.chat", "@You:\ngo\n")
	s.send(uri)
	s.waitText(uri, "Done reading.\n\n@You:\n\n")
	text := s.c.Doc(uri).Text
	if strings.Count(text, "Reading.") != 1 || strings.Count(text, "Done reading.") != 1 || strings.Count(text, "**Tool Result:**") != 1 {
		t.Fatalf("written twice or lost:\n%s", text)
	}
}

// A stream cut mid-answer keeps what arrived and ends with the abort
// marker saying why; closing the document stops a request in flight.
func TestFailureMidStreamAndClose(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Half an ans"},"finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush() // and the connection ends without [DONE]
	}))
	defer srv.Close()
	s := start(t, sessionOptions{userConfig: slowConfig(srv.URL + "/v1")})
	uri := s.open("cut.chat", "@You:\nhi\n")
	s.send(uri)
	s.waitText(uri, "Half an ans\n\n<!-- flemma:aborted: ", " -->\n\n@You:\n\n")
	if text := s.c.Doc(uri).Text; !strings.Contains(text, "ended before the provider finished") {
		t.Errorf("the marker does not say why:\n%s", text)
	}

	c, uri, release, _ := streamingHalfway(t, "close.chat")
	defer close(release)
	if err := c.c.Notify(c.ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}}); err != nil {
		t.Fatal(err)
	}
	waitFileFor(t, filepath.Join(c.state, "chatls", "usage.jsonl"), "the cancelled answer's usage line", func(data []byte) bool {
		return strings.Contains(string(data), `"outcome":"cancelled"`)
	})
}

// What would stop the model from understanding the document stops the send
// before any request: a missing file reference, as a refusal and a
// diagnostic.
func TestSendRefusesAMissingFile(t *testing.T) {
	s := start(t, sessionOptions{userConfig: scriptConfig(t, `{"responses": [{"text": "never"}]}`)})
	uri := s.open("ref.chat", "@You:\nsummarize @./missing.txt\n")
	_, err := s.command("chatls.send", map[string]any{"uri": uri})
	if err == nil || !strings.Contains(err.Error(), "File not found: ./missing.txt") {
		t.Fatalf("err = %v", err)
	}
	s.waitDiagnostic(uri, "File not found: ./missing.txt")
	if strings.Contains(s.c.Doc(uri).Text, "never") {
		t.Fatal("sent anyway")
	}
}

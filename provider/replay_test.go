package provider

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// replayServer answers each request with the next of its replies: a
// status, headers and a body (a recorded event stream or an error body).
// It keeps what it was sent. This is the one fake: the provider's edge.
type replayServer struct {
	*httptest.Server
	mu      sync.Mutex
	replies []reply
	bodies  [][]byte
	paths   []string
	headers []http.Header
	repeat  bool // every request gets the first reply (benchmarks)
}

type reply struct {
	status  int
	headers map[string]string
	body    string
}

func sse(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "streams", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newReplay(t testing.TB, replies ...reply) *replayServer {
	rs := &replayServer{replies: replies}
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rs.mu.Lock()
		n := len(rs.bodies)
		rs.bodies = append(rs.bodies, body)
		rs.paths = append(rs.paths, r.URL.Path+"?"+r.URL.RawQuery)
		rs.headers = append(rs.headers, r.Header.Clone())
		rs.mu.Unlock()
		if rs.repeat {
			n = 0
		}
		if n >= len(rs.replies) {
			http.Error(w, `{"error":{"type":"test","message":"no more replies"}}`, 500)
			return
		}
		rp := rs.replies[n]
		ct := "text/event-stream"
		if rp.status >= 400 {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		for k, v := range rp.headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rp.status)
		_, _ = io.WriteString(w, rp.body)
	}))
	t.Cleanup(rs.Close)
	return rs
}

// collect runs a send and gathers what came out.
type collected struct {
	events []Event
	text   string
	think  string
	tools  []*ToolCall
	blocks []*ThinkingBlock
	usage  Usage
	stop   Event
	retry  []*Retry
}

func send(t *testing.T, r *Request) (collected, Result, error) {
	t.Helper()
	var c collected
	if r.Retry.Sleep == nil {
		r.Retry.Sleep = func(context.Context, time.Duration) error { return nil }
	}
	res, err := Send(context.Background(), r, func(ev Event) {
		c.events = append(c.events, ev)
		switch ev.Kind {
		case EventText:
			c.text += ev.Text
		case EventThinkingDelta:
			c.think += ev.Text
		case EventToolUse:
			c.tools = append(c.tools, ev.Tool)
		case EventThinking:
			c.blocks = append(c.blocks, ev.Thinking)
		case EventUsage:
			c.usage = ev.Usage
		case EventStop:
			c.stop = ev
		case EventRetry:
			c.retry = append(c.retry, ev.Retry)
		}
	})
	return c, res, err
}

func simplePrompt() *Prompt {
	p, _ := BuildPrompt(chatdoc.Parse("@You:\nlist the files\n"), PromptOptions{})
	return p
}

func TestAnthropicStream(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "anthropic-tool.sse")})
	c, res, err := send(t, &Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(),
		Conn: Conn{BaseURL: srv.URL, Key: "sk-ant-test-0123456789"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.text != "I'll list the files." || c.think != "The user wants a listing." {
		t.Fatalf("text %q thinking %q", c.text, c.think)
	}
	if len(c.blocks) != 1 || c.blocks[0].Signature == nil || c.blocks[0].Signature.Provider != "anthropic" || c.blocks[0].Signature.Value != "EqQBCkYIBxgCKkB0" {
		t.Fatalf("thinking %+v", c.blocks)
	}
	if len(c.tools) != 2 || c.tools[0].ID != "toolu_01A" || c.tools[0].Name != "fs.list" || c.tools[0].Input != `{"path":"./src"}` || c.tools[0].InputError != "" {
		t.Fatalf("tool %+v", c.tools[0])
	}
	// A call cut mid-input is kept as the model sent it, flagged.
	if c.tools[1].Input != `{"command": "ls` || c.tools[1].InputError == "" {
		t.Fatalf("invalid tool %+v", c.tools[1])
	}
	want := Usage{InputTokens: 120, OutputTokens: 89, CacheReadTokens: 1000, CacheWriteTokens: 50}
	if c.usage != want || res.Usage != want || c.stop.StopReason != "tool_use" || c.stop.Truncated || res.Attempts != 1 {
		t.Fatalf("usage %+v stop %+v res %+v", c.usage, c.stop, res)
	}
	if h := srv.headers[0]; h.Get("X-Api-Key") != "sk-ant-test-0123456789" || h.Get("Anthropic-Version") == "" {
		t.Fatalf("headers %v", h)
	}
	if srv.paths[0] != "/v1/messages?" {
		t.Fatalf("path %s", srv.paths[0])
	}
}

func TestAnthropicTruncatedAndUnknownEvents(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "anthropic-max-tokens.sse")})
	c, _, err := send(t, &Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}})
	if err != nil || c.text != "A long" || !c.stop.Truncated || c.stop.StopReason != "max_tokens" {
		t.Fatalf("err %v text %q stop %+v", err, c.text, c.stop)
	}
	var ignored []string
	for _, ev := range c.events {
		if ev.Kind == EventIgnored {
			ignored = append(ignored, ev.Text)
		}
	}
	if len(ignored) != 1 || ignored[0] != "future_event_type" {
		t.Errorf("an unknown event is reported for the log, once: %q", ignored)
	}
}

// A stream without its end event is a failure; after content it is not
// retried (the answer would repeat).
func TestStreamCutIsAnError(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "anthropic-cut.sse")})
	c, res, err := send(t, &Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}, Retry: RetryPolicy{Max: 4}})
	if err == nil || !strings.Contains(err.Error(), "ended before") || c.text != "Half an ans" || res.Attempts != 1 || len(srv.bodies) != 1 {
		t.Fatalf("err %v text %q attempts %d", err, c.text, res.Attempts)
	}
}

func TestAnthropicErrorMidStream(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "anthropic-error-midstream.sse")}, reply{status: 200, body: sse(t, "anthropic-max-tokens.sse")})
	c, res, err := send(t, &Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}, Retry: RetryPolicy{Max: 2}})
	if err != nil || res.Attempts != 2 || len(c.retry) != 1 || c.retry[0].Reason != "Overloaded" || c.text != "A long" {
		t.Fatalf("err %v attempts %d retries %+v", err, res.Attempts, c.retry)
	}
}

// 429 with retry-after, then 529, then success: two retries, the waits
// announced (retry-after honoured), the answer whole.
func TestRetriesHonourRetryAfter(t *testing.T) {
	srv := newReplay(t,
		reply{status: 429, headers: map[string]string{"retry-after": "12"}, body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`},
		reply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		reply{status: 200, body: sse(t, "anthropic-tool.sse")})
	var waits []time.Duration
	r := &Request{API: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"},
		Retry: RetryPolicy{Max: 4, Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }}}
	c, res, err := send(t, r)
	if err != nil || res.Attempts != 3 || len(c.retry) != 2 || c.text != "I'll list the files." {
		t.Fatalf("err %v attempts %d retries %d", err, res.Attempts, len(c.retry))
	}
	if waits[0] != 12*time.Second || c.retry[0].Message() != "Rate limited; retrying in 12 s (1/4)" || c.retry[1].Reason != "Overloaded" {
		t.Fatalf("waits %v first %q", waits, c.retry[0].Message())
	}
}

// 401 is not retried; the provider's type and message come through.
func TestUnauthorizedNotRetried(t *testing.T) {
	srv := newReplay(t, reply{status: 401, body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`})
	_, res, err := send(t, &Request{API: "anthropic", Entry: "anthropic", Model: "claude-sonnet-4-6", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "sk-secret-key-value"}, Retry: RetryPolicy{Max: 4}})
	api, ok := err.(*APIError)
	if !ok || api.Status != 401 || api.Type != "authentication_error" || api.Message != "invalid x-api-key" || res.Attempts != 1 {
		t.Fatalf("err %#v attempts %d", err, res.Attempts)
	}
	if strings.Contains(err.Error(), "sk-secret-key-value") || api.Hint != "the key for anthropic was refused; check it" {
		t.Fatalf("error text %q", err)
	}
}

// 404 names the model and the provider, as SPEC §7 words it.
func TestModelNotFound(t *testing.T) {
	srv := newReplay(t, reply{status: 404, body: `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`})
	_, _, err := send(t, &Request{API: "anthropic", Entry: "anthropic", Model: "claude-x", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}})
	if err == nil || !strings.Contains(err.Error(), "model claude-x not found at anthropic") {
		t.Fatalf("err %v", err)
	}
}

func TestRetriesRunOut(t *testing.T) {
	body := `{"error":{"message":"The server had an error","type":"server_error"}}`
	srv := newReplay(t, reply{status: 500, body: body}, reply{status: 503, body: body}, reply{status: 502, body: "<html>bad gateway</html>"})
	c, res, err := send(t, &Request{API: "openai-chat", Model: "m", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL}, Retry: RetryPolicy{Max: 2}})
	api, ok := err.(*APIError)
	if !ok || api.Status != 502 || !strings.Contains(api.Message, "bad gateway") || res.Attempts != 3 || len(c.retry) != 2 {
		t.Fatalf("err %#v attempts %d", err, res.Attempts)
	}
}

func TestResponsesStream(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "responses-tool.sse")})
	c, _, err := send(t, &Request{API: "openai", Model: "gpt-5.4", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "sk-openai"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.text != "Sure, listing." || c.think != "Listing files." || len(c.tools) != 1 || c.tools[0].ID != "call_abc" || c.tools[0].Input != `{"command":"ls"}` {
		t.Fatalf("%q %q %+v", c.text, c.think, c.tools)
	}
	if len(c.blocks) != 1 || c.blocks[0].Signature.Provider != "openai" || c.blocks[0].Text != "Listing files." {
		t.Fatalf("reasoning %+v", c.blocks)
	}
	if c.usage != (Usage{InputTokens: 300, OutputTokens: 40, CacheReadTokens: 200}) || srv.paths[0] != "/responses?" {
		t.Fatalf("usage %+v path %s", c.usage, srv.paths[0])
	}
	if srv.headers[0].Get("Authorization") != "Bearer sk-openai" {
		t.Fatal("no bearer key")
	}
}

func TestChatStream(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "chat-tool.sse")})
	c, _, err := send(t, &Request{API: "openai-chat", Model: "qwen3", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	if c.text != "Reading it." || c.think != "Need the file." || len(c.blocks) != 1 || c.blocks[0].Signature != nil {
		t.Fatalf("%q %q %+v", c.text, c.think, c.blocks)
	}
	if len(c.tools) != 2 || c.tools[0].Name != "fs.read_file" || c.tools[0].Input != `{"path":"a.txt"}` || c.tools[1].Input != "{not json" || c.tools[1].InputError == "" {
		t.Fatalf("tools %+v %+v", c.tools[0], c.tools[1])
	}
	if c.usage != (Usage{InputTokens: 40, OutputTokens: 20, CacheReadTokens: 10}) || c.stop.StopReason != "tool_calls" {
		t.Fatalf("usage %+v stop %+v", c.usage, c.stop)
	}
	if srv.headers[0].Get("Authorization") != "" {
		t.Fatal("a keyless server got an Authorization header")
	}
}

func TestGeminiStream(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: sse(t, "gemini-tool.sse")})
	c, _, err := send(t, &Request{API: "gemini", Model: "gemini-3.1-pro-preview", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "AIza-test"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.text != "Listing now." || c.think != "Plan the listing." || len(c.tools) != 1 || c.tools[0].Name != "bash" || c.tools[0].Input != `{"command":"ls"}` ||
		!strings.HasPrefix(c.tools[0].ID, "urn:flemma:tool:bash:") {
		t.Fatalf("%q %q %+v", c.text, c.think, c.tools)
	}
	if len(c.blocks) != 1 || c.blocks[0].Signature.Provider != "vertex" || c.blocks[0].Signature.Value != "c2lnbmF0dXJl" {
		t.Fatalf("thinking %+v", c.blocks)
	}
	if c.usage != (Usage{InputTokens: 60, OutputTokens: 20, CacheReadTokens: 40, ThoughtTokens: 5}) {
		t.Fatalf("usage %+v", c.usage)
	}
	if !strings.Contains(srv.paths[0], "gemini-3.1-pro-preview:streamGenerateContent") || srv.headers[0].Get("X-Goog-Api-Key") != "AIza-test" {
		t.Fatalf("path %s headers %v", srv.paths[0], srv.headers[0])
	}
	// The body sent is chatls's, not the SDK's placeholder.
	if !strings.Contains(string(srv.bodies[0]), "list the files") || strings.Contains(string(srv.bodies[0]), `"text":"."`) {
		t.Fatalf("body %s", srv.bodies[0])
	}
}

// A provider that never answers: the send ends when the caller cancels.
func TestCancelWhileWaiting(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Send(ctx, &Request{API: "anthropic", Model: "m", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}}, func(Event) {})
		done <- err
	}()
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err %v", err)
	}
}

func TestMalformedStream(t *testing.T) {
	srv := newReplay(t, reply{status: 200, body: "event: message_start\ndata: {not json\n\n"})
	_, res, err := send(t, &Request{API: "anthropic", Model: "m", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "k"}, Retry: RetryPolicy{Max: 3}})
	api, ok := err.(*APIError)
	if !ok || api.Type != "invalid_stream" || res.Attempts != 1 {
		t.Fatalf("err %#v attempts %d", err, res.Attempts)
	}
}

// Gemini's error bodies come through with Google's status word.
func TestGeminiError(t *testing.T) {
	srv := newReplay(t, reply{status: 400, body: `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`})
	_, res, err := send(t, &Request{API: "gemini", Model: "gemini-2.5-pro", Prompt: simplePrompt(), Conn: Conn{BaseURL: srv.URL, Key: "AIza-bad-key-123"}, Retry: RetryPolicy{Max: 3}})
	api, ok := err.(*APIError)
	if !ok || api.Status != 400 || api.Type != "INVALID_ARGUMENT" || !strings.HasPrefix(api.Message, "API key not valid") || res.Attempts != 1 || strings.Contains(err.Error(), "AIza-bad-key-123") {
		t.Fatalf("err %#v attempts %d", err, res.Attempts)
	}
}

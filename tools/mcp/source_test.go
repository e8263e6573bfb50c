package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"
)

func load(t testing.TB, s *Source) map[string]tools.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	list, err := s.Load(ctx)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	byName := map[string]tools.Tool{}
	for _, tool := range list {
		byName[tool.Definition().Name] = tool
	}
	return byName
}

func run(t testing.TB, tool tools.Tool, input map[string]any) tools.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return tool.Run(ctx, tools.Call{ID: "toolu_1", Name: tool.Definition().Name, Input: input}, tools.Env{})
}

func wantResult(t *testing.T, got tools.Result, isError bool, text string) {
	t.Helper()
	if got.IsError != isError || got.Text != text {
		t.Errorf("result = %+v, want IsError %v, text %q", got, isError, text)
	}
}

func TestDefinitions(t *testing.T) {
	s := inMemorySource(t, newTestServer(), config.MCPServer{Previews: map[string]string{"greet": "greet {{.name}}"}})
	byName := load(t, s)
	var names []string
	for name := range byName {
		names = append(names, name)
	}
	for _, want := range []string{"test.greet", "test.multi", "test.fail", "test.structured", "test.block"} {
		if byName[want] == nil {
			t.Errorf("missing %s; have %v", want, names)
		}
	}
	def := byName["test.greet"].Definition()
	if def.Source != "mcp:test" || def.Description != "Greet someone" || def.PreviewTemplate != "greet {{.name}}" {
		t.Errorf("definition = %+v", def)
	}
	var schema map[string]any
	if err := json.Unmarshal(def.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if props, _ := schema["properties"].(map[string]any); props["name"] == nil {
		t.Errorf("schema = %s", def.Schema)
	}
	wantAnn := map[string]any{"readOnlyHint": true, "idempotentHint": false, "openWorldHint": false, "title": "Greeter"}
	if diff := cmp.Diff(wantAnn, def.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if byName["test.multi"].Definition().Annotations != nil {
		t.Error("a tool without annotations got some")
	}

	reg := tools.NewRegistry(nil)
	reg.Replace(s.Name(), s.currentTools())
	if errs := reg.Validate("test.greet", map[string]any{"name": 42}); len(errs) == 0 {
		t.Error("the server's schema did not reject name=42")
	}
	if got := tools.Preview(def, map[string]any{"name": "Ada"}, 80); got != "test.greet: greet Ada" {
		t.Errorf("preview = %q", got)
	}
}

func TestResults(t *testing.T) {
	byName := load(t, inMemorySource(t, newTestServer(), config.MCPServer{}))
	wantResult(t, run(t, byName["test.greet"], map[string]any{"name": "Ada"}), false, "hello Ada")
	wantResult(t, run(t, byName["test.multi"], nil), false, strings.Join([]string{
		"first",
		"[image: image/png, 68 bytes]",
		"[audio: audio/wav, 10 bytes]",
		"[resource: file:///notes.txt]\nnote body",
		"[resource: file:///a.bin, unknown type, 3 bytes]",
		"[resource link: file:///big.log (big.log, text/plain)]",
		"last",
	}, "\n"))
	wantResult(t, run(t, byName["test.fail"], nil), true, "channel not found")
	wantResult(t, run(t, byName["test.structured"], nil), false, `{"sum":3}`)
	// The server validates input against its schema: the error is a result.
	got := run(t, byName["test.greet"], map[string]any{"name": 42})
	if !got.IsError || !strings.Contains(got.Text, "name") {
		t.Errorf("invalid input gave %+v", got)
	}
}

func TestCancelAndTimeout(t *testing.T) {
	block := load(t, inMemorySource(t, newTestServer(), config.MCPServer{}))["test.block"]
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if got := block.Run(ctx, tools.Call{ID: "x"}, tools.Env{}); !got.Cancelled || !got.IsError {
		t.Errorf("cancelled call = %+v", got)
	}
	got := block.Run(context.Background(), tools.Call{ID: "y"}, tools.Env{DefaultTimeout: 1})
	wantResult(t, got, true, "MCP server test did not answer block in time")
}

func TestListChangedReplacesRegistryTools(t *testing.T) {
	server := newTestServer()
	s := inMemorySource(t, server, config.MCPServer{})
	reg := tools.NewRegistry(nil)
	s.OnToolsChanged(func(list []tools.Tool) { reg.Replace(s.Name(), list) })
	reg.AddSource(s, 10*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := reg.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup("test.greet"); !ok {
		t.Fatalf("test.greet not registered: %v", reg.SourceErrors())
	}

	changed := make(chan struct{}, 10)
	reg.OnChange(func() { changed <- struct{}{} })
	server.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "late but here"}}}, nil
		})
	server.RemoveTools("fail")
	deadline := time.After(10 * time.Second)
	for {
		_, hasLate := reg.Lookup("test.late")
		_, hasFail := reg.Lookup("test.fail")
		if hasLate && !hasFail {
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("registry never saw the new list: %v", reg.List())
		}
	}
	late, _ := reg.Lookup("test.late")
	wantResult(t, run(t, late, nil), false, "late but here")
}

func TestStreamableHTTPWithHeaders(t *testing.T) {
	server := newTestServer()
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	var unauthorized int
	httpServer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			unauthorized++
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(httpServer.Close)
	t.Setenv("CHATLS_TEST_TOKEN", "s3cret")

	s := NewSource("remote", config.MCPServer{
		URL:     httpServer.URL,
		Headers: map[string]string{"Authorization": "Bearer ${CHATLS_TEST_TOKEN}"},
	}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	changed := make(chan []tools.Tool, 1)
	s.OnToolsChanged(func(list []tools.Tool) { changed <- list })
	byName := load(t, s)
	wantResult(t, run(t, byName["remote.greet"], map[string]any{"name": "HTTP"}), false, "hello HTTP")
	if unauthorized > 0 {
		t.Errorf("%d requests went out without the configured header", unauthorized)
	}

	// Notifications arrive over the standalone SSE stream.
	server.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	select {
	case list := <-changed:
		if len(list) != 6 {
			t.Errorf("new list has %d tools, want 6", len(list))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed over streamable HTTP")
	}

	bad := NewSource("remote", config.MCPServer{URL: httpServer.URL}, zaptest.NewLogger(t))
	t.Cleanup(func() { bad.Close() }) // it retries in the background
	if _, err := bad.Load(context.Background()); err == nil || !strings.Contains(err.Error(), "cannot connect to MCP server remote") {
		t.Errorf("without the header: err = %v", err)
	}
}

func TestStdioServerRestartsAfterCrash(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "stdioserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/stdioserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s := NewSource("local", config.MCPServer{Command: bin, Env: map[string]string{"GREETING": "hi ${USER_FOR_TEST}"}}, zaptest.NewLogger(t))
	t.Setenv("USER_FOR_TEST", "ada")
	t.Cleanup(func() { s.Close() })
	byName := load(t, s)
	first := run(t, byName["local.echo"], map[string]any{"text": "one"})
	if first.IsError || !strings.Contains(first.Text, "GREETING=hi ada") {
		t.Fatalf("echo = %+v", first)
	}
	got := run(t, byName["local.crash"], nil)
	if !got.IsError || got.Text != `MCP server local closed the connection while running crash (exit status 4); last stderr line: "fatal: out of cheese"; chatls reconnects on the next call` {
		t.Errorf("crash = %+v", got)
	}
	// The session notices the dead process; the next call starts a new one.
	deadline := time.Now().Add(10 * time.Second)
	for {
		again := run(t, byName["local.echo"], map[string]any{"text": "two"})
		if !again.IsError {
			if again.Text == first.Text || !strings.HasPrefix(again.Text, "two (pid ") {
				t.Errorf("after restart echo = %q (before: %q)", again.Text, first.Text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never reconnected; last result %+v", again)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		cfg  config.MCPServer
		want string
	}{
		{config.MCPServer{}, "MCP server x: set command (stdio) or url (streamable HTTP)"},
		{config.MCPServer{Command: "a", URL: "http://b"}, "set either command or url, not both"},
		{config.MCPServer{Command: "/nonexistent/mcp-server"}, "cannot connect to MCP server x"},
	}
	for _, tt := range tests {
		s := NewSource("x", tt.cfg, zaptest.NewLogger(t))
		_, err := s.Load(context.Background())
		s.Close() // a failed load retries in the background
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}

func TestClose(t *testing.T) {
	s := inMemorySource(t, newTestServer(), config.MCPServer{})
	greet := load(t, s)["test.greet"]
	s.Close()
	got := run(t, greet, map[string]any{"name": "x"})
	if !got.IsError || !strings.Contains(got.Text, "MCP server test is stopped") {
		t.Errorf("after Close: %+v", got)
	}
	if _, err := s.Load(context.Background()); err == nil {
		t.Error("Load after Close succeeded")
	}
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// slowSource loads when release is closed (or never, when it stays open).
type slowSource struct {
	name    string
	tools   []Tool
	err     error
	release chan struct{}
}

func (s *slowSource) Name() string { return s.name }

func (s *slowSource) Load(ctx context.Context) ([]Tool, error) {
	if s.release != nil {
		<-s.release
	}
	return s.tools, s.err
}

func named(name string) Tool { return fakeTool{def: Definition{Name: name}} }

func TestRegistryBuiltinsListedSorted(t *testing.T) {
	reg := NewRegistry(Builtins(BuiltinOptions{}))
	var names []string
	for _, d := range reg.List() {
		names = append(names, d.Name)
	}
	want := "bash calculator copy delete edit find git_branch git_commit git_diff git_log git_push git_status grep ls mkdir move read time web_fetch write"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("List = %s, want %s", got, want)
	}
	if !reg.Ready() {
		t.Error("a registry without sources is ready")
	}
	if _, ok := reg.Lookup("read"); !ok {
		t.Error("read not found")
	}
}

func TestRegistrySourceLifecycle(t *testing.T) {
	reg := NewRegistry([]Tool{named("read")})
	var changes atomic.Int32
	changed := make(chan struct{}, 10)
	reg.OnChange(func() { changes.Add(1); changed <- struct{}{} })

	src := &slowSource{name: "mcp:slack", tools: []Tool{named("slack:channels_list"), named("read")}, release: make(chan struct{})}
	reg.AddSource(src, time.Minute)
	if reg.Ready() {
		t.Fatal("ready before the source loaded")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	if err := reg.WaitReady(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitReady = %v, want deadline", err)
	}
	cancel()

	close(src.release)
	if err := reg.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-changed
	if _, ok := reg.Lookup("slack:channels_list"); !ok {
		t.Error("source tool missing")
	}
	// The source's "read" loses to the built-in and is reported.
	if err := reg.SourceErrors()["mcp:slack"]; err == nil || !strings.Contains(err.Error(), `"read"`) {
		t.Errorf("SourceErrors = %v", reg.SourceErrors())
	}
	for _, d := range reg.List() {
		if d.Name == "slack:channels_list" && d.Source != "mcp:slack" {
			t.Errorf("source = %q", d.Source)
		}
	}

	// list_changed: the source replaces its tools.
	reg.Replace("mcp:slack", []Tool{named("slack:post")})
	<-changed
	if _, ok := reg.Lookup("slack:channels_list"); ok {
		t.Error("replaced tool still there")
	}
	if _, ok := reg.Lookup("slack:post"); !ok {
		t.Error("new tool missing")
	}
	if changes.Load() != 2 {
		t.Errorf("%d change notifications, want 2", changes.Load())
	}
}

func TestRegistrySourceTimeoutAndFailure(t *testing.T) {
	reg := NewRegistry(nil)
	hang := &slowSource{name: "plugin:hang", release: make(chan struct{})}
	fail := &slowSource{name: "plugin:fail", err: errors.New("exec: not found")}
	reg.AddSource(hang, 20*time.Millisecond)
	reg.AddSource(fail, time.Minute)
	if err := reg.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	errs := reg.SourceErrors()
	if !strings.Contains(errs["plugin:hang"].Error(), "did not load within 20ms") {
		t.Errorf("hang: %v", errs["plugin:hang"])
	}
	if !strings.Contains(errs["plugin:fail"].Error(), "not found") {
		t.Errorf("fail: %v", errs["plugin:fail"])
	}
	// A late answer still registers the tools.
	changed := make(chan struct{}, 1)
	reg.OnChange(func() { changed <- struct{}{} })
	hang.tools = []Tool{named("late")}
	close(hang.release)
	<-changed
	if _, ok := reg.Lookup("late"); !ok {
		t.Error("late tools not registered")
	}
}

func TestSuggest(t *testing.T) {
	reg := NewRegistry(Builtins(BuiltinOptions{}))
	reg.Replace("mcp:slack", []Tool{named("slack:channels_list")})
	for in, want := range map[string]string{
		"reed": "read", "Read": "read", "grpe": "grep", "bsh": "bash", "wirte": "write",
		"slack:channel_list": "slack:channels_list", "webfetch": "web_fetch",
		"rm": "", "deploy": "", "read": "", strings.Repeat("x", 10000): "",
	} {
		if got := reg.Suggest(in); got != want {
			t.Errorf("Suggest(%.20q) = %q, want %q", in, got, want)
		}
	}
}

// TestSetBuiltinsAppliesNewOptions: a settings reload that changes
// tools.web_fetch.allowHosts reaches web_fetch through SetBuiltins, without
// a change notification (definitions are the same).
func TestSetBuiltinsAppliesNewOptions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal page") }))
	defer srv.Close()
	reg := NewRegistry(Builtins(BuiltinOptions{}))
	notified := 0
	reg.OnChange(func() { notified++ })
	r := NewRunner(reg)
	fetch := func() Result {
		return r.Run(context.Background(), Call{ID: "w", Name: "web_fetch", Input: map[string]any{"url": srv.URL}}, testEnv(t))
	}
	if res := fetch(); !res.IsError || !strings.Contains(res.Text, "refusing to connect to 127.0.0.1") {
		t.Fatalf("before: %q", res.Text)
	}
	reg.SetBuiltins(Builtins(BuiltinOptions{WebFetchAllowHosts: []string{"127.0.0.1"}}))
	if res := fetch(); res.IsError || res.Text != "internal page" {
		t.Errorf("after allowing 127.0.0.1: %q", res.Text)
	}
	if notified != 0 {
		t.Errorf("listeners notified %d times for unchanged definitions", notified)
	}
	// A different set of built-ins is a change listeners hear about.
	reg.SetBuiltins(Builtins(BuiltinOptions{})[:3])
	if _, ok := reg.Lookup("web_fetch"); ok || notified != 1 {
		t.Errorf("web_fetch still there=%v, notified %d", ok, notified)
	}
}

// An MCP tool is `server.tool` (Flemma 0.12); a document's 0.11 name
// `server:tool` finds the same tool.
func TestLookupReadsTheOldMCPName(t *testing.T) {
	reg := NewRegistry([]Tool{named("slack.channels_list")})
	for _, name := range []string{"slack.channels_list", "slack:channels_list"} {
		if tool, ok := reg.Lookup(name); !ok || tool.Definition().Name != "slack.channels_list" {
			t.Errorf("Lookup(%q) = %v, %v", name, tool, ok)
		}
	}
	if _, ok := reg.Lookup("slack:other"); ok {
		t.Error("an unknown old-form name was found")
	}
}

package tools

import (
	"context"
	"errors"
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
	reg := NewRegistry(builtins(t))
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

package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/procsup/proctest"
	"github.com/chatls/chatls/tools"
	"go.uber.org/zap/zaptest"
)

// serverPid is the stdio server process of the live session.
func serverPid(t *testing.T, s *Source) int {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.group == nil {
		t.Fatal("no stdio server process")
	}
	return s.group.cmd.Process.Pid
}

func firstPid(t *testing.T, file string) int {
	t.Helper()
	return proctest.Pid(t, strings.Split(proctest.AwaitFile(t, file, 10*time.Second), "\n")[0])
}

// After Close neither the stdio server nor what it spawned is running.
func TestStdioProcessesGoneAfterClose(t *testing.T) {
	proctest.Skip(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	s := NewSource("local", config.MCPServer{Command: buildStdioServer(t), Env: map[string]string{"SPAWN_PIDFILE": pidFile}}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	load(t, s)
	server, child := serverPid(t, s), firstPid(t, pidFile)
	if !proctest.Alive(server) || !proctest.Alive(child) {
		t.Fatalf("server %d or its child %d not running", server, child)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	proctest.AwaitGone(t, 5*time.Second, server, child)
}

// A stdio server that dies takes its children along.
func TestStdioChildGoneAfterCrash(t *testing.T) {
	proctest.Skip(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	s := NewSource("local", config.MCPServer{Command: buildStdioServer(t), Env: map[string]string{"SPAWN_PIDFILE": pidFile}}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	crash := load(t, s)["local.crash"]
	child := firstPid(t, pidFile)
	wantResult(t, run(t, crash, nil), true, `MCP server local closed the connection while running crash (exit status 4); last stderr line: "fatal: out of cheese"; chatls reconnects on the next call`)
	proctest.AwaitGone(t, 5*time.Second, child)
}

// The reference server is node: it and anything under it are gone after Close.
func TestNPMEverythingGoneAfterClose(t *testing.T) {
	proctest.Skip(t)
	node, script := everything(t)
	s := NewSource("everything", config.MCPServer{Command: node, Args: []string{script, "stdio"}}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	load(t, s)
	pids := append([]int{serverPid(t, s)}, proctest.Descendants(serverPid(t, s))...)
	if !proctest.Alive(pids[0]) {
		t.Fatal("node is not running")
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	proctest.AwaitGone(t, 5*time.Second, pids...)
}

// A server that never answers initialize fails the load with its own
// message (before the registry's generic timeout) and is stopped.
func TestLoadTimeoutSaysWhatWasAwaited(t *testing.T) {
	proctest.Skip(t)
	dir := t.TempDir()
	mute, pidFile := filepath.Join(dir, "mute.sh"), filepath.Join(dir, "pids")
	if err := os.WriteFile(mute, []byte("#!/bin/bash\necho $$ >> \"$PIDFILE\"\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := NewSource("mute", config.MCPServer{Command: mute, Env: map[string]string{"PIDFILE": pidFile}}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := s.Load(ctx)
	want := "MCP server mute did not answer initialize within 500ms; chatls retries in the background"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	proctest.AwaitGone(t, 5*time.Second, firstPid(t, pidFile))
}

// A server that cannot start at first is retried in the background; its
// tools arrive through OnToolsChanged once it works.
func TestFirstLoadFailureIsRetried(t *testing.T) {
	bin := buildStdioServer(t)
	later := filepath.Join(t.TempDir(), "installed-later")
	s := NewSource("late", config.MCPServer{Command: later}, zaptest.NewLogger(t))
	s.retryMin = 20 * time.Millisecond
	t.Cleanup(func() { s.Close() })
	changed := make(chan []tools.Tool, 1)
	s.OnToolsChanged(func(list []tools.Tool) { changed <- list })
	_, err := s.Load(context.Background())
	if err == nil || !strings.Contains(err.Error(), "cannot connect to MCP server late") || !strings.HasSuffix(err.Error(), "; chatls retries in the background") {
		t.Fatalf("first Load: %v", err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(later, data, 0o755); err != nil {
		t.Fatal(err)
	}
	select {
	case list := <-changed:
		names := []string{}
		for _, tool := range list {
			names = append(names, tool.Definition().Name)
		}
		if strings.Join(names, " ") != "late.crash late.echo" && strings.Join(names, " ") != "late.echo late.crash" {
			t.Errorf("tools after the retry: %v", names)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no retry succeeded")
	}
}

// A broken entry is not retried: only a config change can fix it.
func TestConfigErrorIsNotRetried(t *testing.T) {
	s := NewSource("x", config.MCPServer{}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	if _, err := s.Load(context.Background()); err == nil || strings.Contains(err.Error(), "retries") {
		t.Fatalf("err = %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retrying {
		t.Error("a config error is being retried")
	}
}

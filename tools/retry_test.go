package tools

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A read-only call that fails with a 5xx runs again with backoff and says
// so; a 4xx, and anything that can change state, is never repeated.
func TestRetriesOnlyWhatIsSafe(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		switch {
		case r.URL.Path == "/flaky" && n <= 2:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case r.URL.Path == "/flaky":
			fmt.Fprint(w, "finally")
		case r.URL.Path == "/down":
			http.Error(w, "down", http.StatusBadGateway)
		default:
			http.Error(w, "no", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	host := strings.Split(srv.Listener.Addr().String(), ":")[0]
	r := NewRunner(NewRegistry(Builtins(BuiltinOptions{WebFetchAllowHosts: []string{host}})))
	env := testEnv(t)
	env.Retries, env.RetryBase = 2, time.Millisecond
	fetch := func(path string) Result {
		hits.Store(0)
		return r.Run(context.Background(), Call{ID: "w" + path, Name: "web_fetch", Input: map[string]any{"url": srv.URL + path}}, env)
	}
	if res := fetch("/flaky"); res.IsError || !strings.Contains(res.Text, "finally") || !strings.HasSuffix(res.Text, "(after 2 retries)") || hits.Load() != 3 {
		t.Fatalf("flaky: %d requests, %q", hits.Load(), res.Text)
	}
	if res := fetch("/down"); !res.IsError || !strings.HasSuffix(res.Text, "(after 2 retries)") || hits.Load() != 3 {
		t.Fatalf("down: %d requests, %q", hits.Load(), res.Text)
	}
	if res := fetch("/missing"); !res.IsError || strings.Contains(res.Text, "retries") || hits.Load() != 1 {
		t.Fatalf("a 404 is not retried: %d requests, %q", hits.Load(), res.Text)
	}
	env.Retries = 0
	if res := fetch("/flaky"); !res.IsError || hits.Load() != 1 {
		t.Fatalf("tools.retries = 0: %d requests", hits.Load())
	}

	// bash that times out is never repeated: it could have changed state.
	env.Retries, env.BashTimeout = 2, 1
	marker := t.TempDir() + "/runs"
	res := r.Run(context.Background(), Call{ID: "b", Name: "bash", Input: map[string]any{"command": "echo x >> " + marker + "; sleep 60", "timeout": 3}}, env)
	if !res.IsError || strings.Contains(res.Text, "retries") {
		t.Fatalf("bash: %q", res.Text)
	}
	if data, _ := os.ReadFile(marker); string(data) != "x\n" {
		t.Fatalf("bash ran %q times", data)
	}
}

func TestRetrySafe(t *testing.T) {
	for _, c := range []struct {
		def   Definition
		input map[string]any
		want  bool
	}{
		{Definition{Name: "read", Source: "builtin"}, nil, true},
		{Definition{Name: "git_log", Source: "builtin"}, nil, true},
		{Definition{Name: "git_branch", Source: "builtin"}, map[string]any{}, true},
		{Definition{Name: "git_branch", Source: "builtin"}, map[string]any{"create": true}, false},
		{Definition{Name: "bash", Source: "builtin"}, nil, false},
		{Definition{Name: "write", Source: "builtin"}, nil, false},
		{Definition{Name: "delete", Source: "builtin"}, nil, false},
		{Definition{Name: "git_push", Source: "builtin"}, nil, false},
		{Definition{Name: "fs:read", Source: "mcp:fs", Annotations: map[string]any{"readOnlyHint": true}}, nil, true},
		{Definition{Name: "db:upsert", Source: "mcp:db", Annotations: map[string]any{"idempotentHint": true}}, nil, true},
		{Definition{Name: "slack:post", Source: "mcp:slack"}, nil, false},
		{Definition{Name: "read", Source: "plugin:x"}, nil, false},
	} {
		var tool Tool = fakeTool{def: c.def}
		if c.def.Source == "builtin" {
			tool = builtinNamed(c.def.Name)
		}
		if got := RetrySafe(tool, c.input); got != c.want {
			t.Errorf("%s %v: %v", c.def.Name, c.input, got)
		}
	}
}

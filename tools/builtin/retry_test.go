package builtin

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

	"github.com/chatls/chatls/tools"
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
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{WebFetchAllowHosts: []string{host}})))
	env := testEnv(t)
	env.Retries, env.RetryBase = 2, time.Millisecond
	fetch := func(path string) tools.Result {
		hits.Store(0)
		return r.Run(context.Background(), tools.Call{ID: "w" + path, Name: "web_fetch", Input: map[string]any{"url": srv.URL + path}}, env)
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
	res := r.Run(context.Background(), tools.Call{ID: "b", Name: "bash", Input: map[string]any{"command": "echo x >> " + marker + "; sleep 60", "timeout": 3}}, env)
	if !res.IsError || strings.Contains(res.Text, "retries") {
		t.Fatalf("bash: %q", res.Text)
	}
	if data, _ := os.ReadFile(marker); string(data) != "x\n" {
		t.Fatalf("bash ran %q times", data)
	}
}

// Which built-ins only look, and so may run again (SPEC §5 "Retries").
func TestRetrySafe(t *testing.T) {
	byName := map[string]tools.Tool{}
	for _, tool := range Tools(Options{}) {
		byName[tool.Definition().Name] = tool
	}
	for _, c := range []struct {
		name  string
		input map[string]any
		want  bool
	}{
		{"read", nil, true},
		{"grep", nil, true},
		{"find", nil, true},
		{"ls", nil, true},
		{"web_fetch", nil, true},
		{"git_status", nil, true},
		{"git_diff", nil, true},
		{"git_log", nil, true},
		{"git_branch", map[string]any{}, true},
		{"git_branch", map[string]any{"create": true}, false},
		{"bash", nil, false},
		{"write", nil, false},
		{"edit", nil, false},
		{"delete", nil, false},
		{"move", nil, false},
		{"git_commit", nil, false},
		{"git_push", nil, false},
		{"time", nil, false},
	} {
		if got := tools.RetrySafe(byName[c.name], c.input); got != c.want {
			t.Errorf("%s %v: %v", c.name, c.input, got)
		}
	}
}

package e2e

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// configSession is a session started with a user config file.
type configSession struct {
	*session
	userConfig string // $XDG_CONFIG_HOME/chatls/config.toml
}

// startWithUserConfig starts a server whose user config file holds text
// ("" for none) and whose workspace .chatls.toml holds workspace ("" for none).
func startWithUserConfig(t *testing.T, o sessionOptions, userText, workspaceText string) *configSession {
	t.Helper()
	o.userConfig, o.workspaceConfig = userText, workspaceText
	s := start(t, o)
	return &configSession{session: s, userConfig: s.userConfigPath()}
}

// messages returns the window/showMessage texts containing sub.
func (s *session) messages(sub string) []string {
	return showMessages(s.c.Events(), sub)
}

func showMessages(events []lspclient.Event, sub string) []string {
	var out []string
	for _, e := range events {
		if e.Kind != "message" || e.Label != "window/showMessage" {
			continue
		}
		var m struct {
			Type    int    `json:"type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Data, &m) == nil && strings.Contains(m.Message, sub) {
			out = append(out, m.Message)
		}
	}
	return out
}

// waitMessage waits until n window/showMessage texts contain every substring
// and returns the last of them.
func (s *session) waitMessage(n int, subs ...string) string {
	s.t.Helper()
	var found string
	err := s.c.WaitFor(15*time.Second, "a message with "+strings.Join(subs, " + "), func(st *lspclient.State) bool {
		count := 0
		for _, m := range showMessages(st.Events(), subs[0]) {
			all := true
			for _, sub := range subs[1:] {
				all = all && strings.Contains(m, sub)
			}
			if all {
				count++
				found = m
			}
		}
		return count >= n
	})
	if err != nil {
		s.t.Fatalf("%v; messages: %q", err, s.messages(""))
	}
	return found
}

// explain runs chatls.explain for one tool use.
func (s *session) explain(uri, id string) (decision, trace string) {
	s.t.Helper()
	out, err := s.command("chatls.explain", map[string]any{"uri": uri, "id": id})
	if err != nil {
		s.t.Fatalf("chatls.explain: %v", err)
	}
	decision, _ = out["decision"].(string)
	trace, _ = out["trace"].(string)
	return decision, trace
}

// eventually re-checks cond until it holds. The server announces no
// "settings applied" event (didChangeConfiguration and file reloads are
// handled in the background), so tests re-ask until the effect shows.
func (s *session) eventually(what string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitDecision waits until chatls.explain gives want for id; it returns the trace.
func (s *session) waitDecision(uri, id, want string) string {
	s.t.Helper()
	var got, trace string
	s.eventually("decision "+want+" for "+id, func() bool {
		got, trace = s.explain(uri, id)
		return got == want
	})
	return trace
}

// changeConfig sends workspace/didChangeConfiguration with settings (nil:
// the client's answer to workspace/configuration is to be pulled).
func (s *session) changeConfig(settings any) {
	s.t.Helper()
	if err := s.c.Notify(s.ctx, "workspace/didChangeConfiguration", map[string]any{"settings": settings}); err != nil {
		s.t.Fatal(err)
	}
}

// listTools runs chatls.listTools (uri may be "") and returns name → source.
func (s *session) listTools(uri string) map[string]string {
	s.t.Helper()
	args := map[string]any{}
	if uri != "" {
		args["uri"] = uri
	}
	var out []map[string]any
	if err := s.c.Call(s.ctx, "workspace/executeCommand", map[string]any{"command": "chatls.listTools", "arguments": []any{args}}, &out); err != nil {
		s.t.Fatalf("chatls.listTools: %v", err)
	}
	names := map[string]string{}
	for _, tool := range out {
		name, _ := tool["name"].(string)
		names[name], _ = tool["source"].(string)
	}
	return names
}

// liveConfig answers workspace/configuration with whatever was set last.
type liveConfig struct {
	mu sync.Mutex
	v  any
}

func (l *liveConfig) set(v any) {
	l.mu.Lock()
	l.v = v
	l.mu.Unlock()
}

func (l *liveConfig) MarshalJSON() ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return json.Marshal(l.v)
}

// twoCalls is a document with two finished-looking Assistant calls waiting
// for categorization: bash `command` (toolu_b) and read of `path` (toolu_r).
func twoCalls(command, path string) string {
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`toolu_b`)\n\n```json\n{\"command\": " + jsonString(command) + ", \"timeout\": null}\n```\n\n" +
		"**Tool Use:** `read` (`toolu_r`)\n\n```json\n{\"path\": " + jsonString(path) + ", \"offset\": null, \"limit\": null}\n```\n\n@You:\n"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

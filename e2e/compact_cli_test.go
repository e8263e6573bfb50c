package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// `chatls compact FILE` sends the older turns to the model with the
// summary prompt, moves them into FILE's archive and puts the summary in
// their place; a failed summary request leaves FILE as it was and no
// archive (SPEC §11).
func TestCLICompact(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	fail := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		failing := fail
		mu.Unlock()
		if failing {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Goal: colours. Decided: blue."},"finish_reason":null}]}`+"\n\n")
		io.WriteString(w, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	config := slowConfig(srv.URL+"/v1") + "[providers.slow.models.m]\ncontextWindow = 400\n"
	var turns []string
	for _, q := range []string{"red", "green", "blue", "yellow"} {
		turns = append(turns, "@You:\nwhat about "+q+"? "+strings.Repeat("tell me more. ", 10)+"\n\n@Assistant:\n"+q+" is nice. "+strings.Repeat("It is fine. ", 10)+"\n\n")
	}
	text := strings.Join(turns, "") + "@You:\nand now?\n"
	dir := t.TempDir()
	file := filepath.Join(dir, "c.chat")

	testfs.Write(t, file, text)
	mu.Lock()
	fail = true
	mu.Unlock()
	if code, _, stderr := chatlsIn(t, dir, config, t.TempDir(), "compact", "c.chat"); code != 1 || !strings.Contains(stderr, "nothing changed") {
		t.Fatalf("failed summary: exit %d, stderr %q", code, stderr)
	}
	if got, _ := os.ReadFile(file); string(got) != text {
		t.Fatalf("FILE changed after a failed summary: %q", got)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.archive-*")); len(m) != 0 {
		t.Fatalf("archives left: %v", m)
	}

	mu.Lock()
	fail, bodies = false, nil
	mu.Unlock()
	code, stdout, stderr := chatlsIn(t, dir, config, t.TempDir(), "compact", "c.chat")
	if code != 0 || !strings.Contains(stdout, "into c.archive-1.chat") {
		t.Fatalf("compact: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	archive, err := os.ReadFile(filepath.Join(dir, "c.archive-1.chat"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if !strings.HasPrefix(string(got), "@You:\n<!-- chatls:compacted ") || !strings.Contains(string(got), "Goal: colours. Decided: blue.") ||
		!strings.HasSuffix(string(got), turns[3]+"@You:\nand now?\n") || !strings.HasPrefix(string(archive), turns[0]) {
		t.Fatalf("FILE:\n%s\narchive:\n%s", got, archive)
	}
	// The summary request carried the moved messages, and only one request went out.
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 1 || !strings.Contains(bodies[0], "what about red?") || strings.Contains(bodies[0], `"tools"`) {
		t.Fatalf("summary requests: %q", bodies)
	}
}

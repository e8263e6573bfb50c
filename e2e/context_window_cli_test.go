package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// A conversation past the model's context window is not sent: chatls send
// exits 1 with the reason, no request reaches the provider and FILE is as
// it was. One between context.warnAt and the window is sent when the user
// asks (SPEC §11).
func TestCLISendRefusesAConversationPastTheWindow(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chatStream(3, 0))
	}))
	defer srv.Close()
	// 1,000 tokens; without a count a document is estimated at 3.5 bytes a token.
	config := slowConfig(srv.URL+"/v1") + "[providers.slow.models.m]\ncontextWindow = 1000\n"
	for _, c := range []struct {
		name     string
		size     int
		code     int
		requests int32
		stderr   string
	}{
		{"past the window", 8000, 1, 0, "of the 1k-token context window: compact the conversation first"},
		{"past warnAt, sent when asked", 3000, 0, 1, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			requests.Store(0)
			dir := t.TempDir()
			file := filepath.Join(dir, "a.chat")
			text := "@You:\n" + strings.Repeat("a long question ", c.size/16) + "\n"
			testfs.Write(t, file, text)
			code, _, stderr := chatlsIn(t, dir, config, t.TempDir(), "send", "a.chat")
			if code != c.code || !strings.Contains(stderr, c.stderr) || requests.Load() != c.requests {
				t.Fatalf("exit %d (want %d), %d request(s) (want %d), stderr %q", code, c.code, requests.Load(), c.requests, stderr)
			}
			if got, _ := os.ReadFile(file); c.code != 0 && string(got) != text {
				t.Errorf("FILE changed: %q", got)
			}
		})
	}
}

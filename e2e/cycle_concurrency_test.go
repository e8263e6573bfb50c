package e2e

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// waitLines waits, on file-system events, until path holds at least n lines.
func waitLines(t *testing.T, path string, n int) []string {
	t.Helper()
	data := waitFileFor(t, path, fmt.Sprintf("got %d lines", n), func(data []byte) bool {
		return len(data) > 0 && bytes.HasSuffix(data, []byte("\n")) && bytes.Count(data, []byte("\n")) >= n
	})
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// gatedDoc is two bash calls that each log their start, block on their own
// FIFO until the test opens it, and log their end.
func gatedDoc() string {
	cmd := func(id string) string {
		return "echo " + id + "-start >> order.txt; read x < gate-" + id + "; echo " + id + "-end >> order.txt"
	}
	return twoBashDoc(cmd("b1"), cmd("b2"))
}

// tools.maxConcurrent = 1: while one approved tool runs (blocked on its
// FIFO), the other is queued — its hover says so, and never says running —
// and starts when the first has ended. With the limit at 2 both run at
// once, which shows the observation works.
func TestMaxConcurrentIsEnforced(t *testing.T) {
	for _, limit := range []int{1, 2} {
		t.Run(map[int]string{1: "one", 2: "two"}[limit], func(t *testing.T) {
			s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
				"tools": map[string]any{"maxConcurrent": limit}}}})
			makeGate(t, s.ws, "gate-b1")
			makeGate(t, s.ws, "gate-b2")
			order := filepath.Join(s.ws, "order.txt")
			uri := s.open("limit.chat", gatedDoc())
			s.advance(uri)
			s.waitText(uri, "`b2`\n\n```flemma:tool status=pending")
			s.applyAction(uri, "status=pending", "Approve all 2 pending")

			if limit == 2 {
				started := waitLines(t, order, 2)
				if !strings.HasSuffix(started[0], "-start") || !strings.HasSuffix(started[1], "-start") {
					t.Fatalf("with room for two both must start before either ends: %q", started)
				}
				openGate(t, filepath.Join(s.ws, "gate-b1"))
				openGate(t, filepath.Join(s.ws, "gate-b2"))
				s.waitText(uri, "**Tool Result:** `b1`\n\n```\n(no output)\n```", "**Tool Result:** `b2`\n\n```\n(no output)\n```")
				return
			}

			first := strings.TrimSuffix(waitLines(t, order, 1)[0], "-start")
			second := map[string]string{"b1": "b2", "b2": "b1"}[first]
			// While the first holds the only slot (blocked on its FIFO), the
			// second must show as queued — waiting for a free slot — and
			// never as running. Without the limit it would run at once.
			at := "`bash` (`" + second + "`)"
			s.waitHover(uri, at, "**Status:** running", "**Status:** queued · queued ", "waiting for a free slot for ")
			if r := s.advance(uri); r["running"] != float64(2) {
				t.Errorf("both approved tools count as running (one queued): %v", r)
			}
			if h := s.hover(uri, at); !strings.Contains(h, "**Status:** queued") {
				t.Fatalf("the second tool left the queue while the first held the slot:\n%s", h)
			}
			if lines := waitLines(t, order, 1); len(lines) != 1 {
				t.Fatalf("the second tool started while the first ran: %q", lines)
			}
			openGate(t, filepath.Join(s.ws, "gate-"+first))
			// Once it runs, its hover says how long it was queued.
			s.waitHover(uri, at, "", "**Status:** running · queued ", ", started ")
			openGate(t, filepath.Join(s.ws, "gate-"+second)) // blocks until the second reads: it started
			s.waitText(uri, "**Tool Result:** `b1`\n\n```\n(no output)\n```", "**Tool Result:** `b2`\n\n```\n(no output)\n```")
			got := strings.Join(waitLines(t, order, 4), ",")
			if want := first + "-start," + first + "-end," + second + "-start," + second + "-end"; got != want {
				t.Errorf("order = %s, want %s", got, want)
			}
		})
	}
}

// waitHover re-asks for the hover at the first occurrence of at (it is
// computed on request; nothing announces a change) until it contains every
// one of want; it fails at once if the hover ever contains forbid ("" for
// nothing forbidden).
func (s *session) waitHover(uri, at, forbid string, want ...string) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		h := s.hover(uri, at)
		if forbid != "" && strings.Contains(h, forbid) {
			s.t.Fatalf("the hover at %s says %q:\n%s", at, forbid, h)
		}
		all := true
		for _, w := range want {
			all = all && strings.Contains(h, w)
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the hover at %s never showed %q:\n%s", at, want, h)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
)

// Two chatls processes (an editor's and a terminal's, or two editors) on
// the same documents, sharing a state directory, race on the same approved
// call, round after round: the call runs exactly once per ID, and the
// process that lost writes the recorded result of the other's run instead
// of running it (SPEC §2: at most once per ID, also across processes).
func TestTwoServersRaceOnOneApprovedCall(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	base := t.TempDir()
	ws, state := filepath.Join(base, "ws"), filepath.Join(base, "state")
	os.MkdirAll(ws, 0o755)
	a := start(t, sessionOptions{ws: ws, state: state, Options: echoRule})
	b := start(t, sessionOptions{ws: ws, state: state, Options: echoRule})
	ran := "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```"
	recorded := "the tool was not run again.]"
	for i := 0; i < rounds; i++ {
		name := fmt.Sprintf("race-%03d", i)
		doc := strings.Replace(onceDoc(), "echo ran >>", "echo "+name+" >>", 1)
		ua, ub := a.open(name+".chat", doc), b.open(name+".chat", doc)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for k, s := range []*session{a, b} {
			uri := []string{ua, ub}[k]
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[k] = s.command("chatls.advance", map[string]any{"uri": uri})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("round %d: chatls.advance: %v", i, err)
			}
		}
		// Each document gets a result: one the run's, the other the record of it.
		var texts [2]string
		for k, s := range []*session{a, b} {
			uri := []string{ua, ub}[k]
			if err := s.c.WaitFor(60*time.Second, name+" resolved", func(st *lspclient.State) bool {
				texts[k] = st.Text(uri)
				return !strings.Contains(texts[k], "status=approved")
			}); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
		got := []bool{strings.Contains(texts[0], ran), strings.Contains(texts[1], ran)}
		if got[0] == got[1] {
			t.Fatalf("round %d: exactly one server must have run the call; documents:\n%s\n---\n%s", i, texts[0], texts[1])
		}
		loser := texts[1]
		if got[1] {
			loser = texts[0]
		}
		if !strings.Contains(loser, recorded) {
			t.Errorf("round %d: the server that did not run the call must write the recorded result:\n%s", i, loser)
		}
	}
	data, _ := os.ReadFile(filepath.Join(ws, "runs.txt"))
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	if len(lines) != rounds || len(seen) != rounds {
		t.Errorf("runs.txt has %d lines for %d IDs, want one run for each of %d calls:\n%s", len(lines), len(seen), rounds, data)
	}
}

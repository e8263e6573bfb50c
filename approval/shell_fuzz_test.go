package approval

import (
	"context"
	"testing"
	"time"
)

// FuzzShellAnalysis: no input panics or hangs, and nothing the analysis
// can't read is approved by a broad allow rule.
//
//	go test ./approval -run '^$' -fuzz FuzzShellAnalysis -fuzztime 60s
func FuzzShellAnalysis(f *testing.F) {
	for _, r := range decideRows() {
		if c, ok := r.input["command"].(string); ok {
			f.Add(c)
		}
	}
	f.Add("a=$(b) c <<<$(d) | e <(f) >(g) & h ${i:-$(j)} $((k[$(l)])) `m` {n,o} p* 'q' \"r$s\" \\t $'\\x75'")
	f.Add("for ((i=0;i<3;i++)); do coproc x { y; }; done; select a in b; do :; done; [[ -v a[$(b)] ]]")
	fx := newFixture(f)
	e, err := NewEngine(fx.sources(f, "[tools]\nautoApprove = [\"bash(echo *)\", \"bash(ls *)\"]\ndeny = [\"bash(rm *)\"]\n", "", false, nil), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		done := make(chan Verdict, 1)
		go func() {
			analyzeShell(cmd, fx.root, fx.home)
			done <- e.Decide(context.Background(), Call{Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: fx.doc, WorkspaceRoot: fx.root})
		}()
		select {
		case v := <-done:
			if v.Decision == "" {
				t.Fatalf("empty decision for %q", cmd)
			}
			a := analyzeShell(cmd, fx.root, fx.home)
			if v.Decision == Approve && len(a.opaque) > 0 {
				t.Fatalf("approved an opaque command %q: %v", cmd, a.opaque)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("analysis hangs on %q", cmd)
		}
	})
}

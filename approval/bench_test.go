package approval

import (
	"context"
	"testing"
)

// BenchmarkDecideTypicalBash is one decision for a typical command with a
// realistic user config (SPEC §7; issue 4 aims under 50 µs).
//
//	go test ./approval -run '^$' -bench DecideTypicalBash -benchmem
func BenchmarkDecideTypicalBash(b *testing.B) {
	f := newFixture(b)
	e, err := NewEngine(f.sources(b, cfgGo, "", false, nil), nil)
	if err != nil {
		b.Fatal(err)
	}
	call := Call{ID: "toolu_1", Tool: "bash", Input: map[string]any{"command": "cd src && go test -run TestParse ./... 2>&1 | tee test.log"}, DocPath: f.doc, WorkspaceRoot: f.root}
	if v := e.Decide(context.Background(), call); v.Decision != RequireApproval {
		b.Fatalf("unexpected %s", v.Format()) // tee is not allowed by cfgGo
	}
	call.Input = map[string]any{"command": "go test -run TestParse ./... 2>&1 > test.log"}
	if v := e.Decide(context.Background(), call); v.Decision != Approve {
		b.Fatalf("unexpected %s", v.Format())
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Decide(context.Background(), call)
	}
}

func BenchmarkDecideRead(b *testing.B) {
	f := newFixture(b)
	e, _ := NewEngine(f.sources(b, cfgGo, "", false, nil), nil)
	call := Call{Tool: "read", Input: map[string]any{"path": "src/main.go"}, DocPath: f.doc, WorkspaceRoot: f.root}
	b.ReportAllocs()
	for b.Loop() {
		e.Decide(context.Background(), call)
	}
}

// BenchmarkDecideBashWithPathDenies is a typical command under a config
// that also denies reading and writing some paths: every argument is then
// checked as a path (path rules apply by effect).
//
//	go test ./approval -run '^$' -bench DecideBashWithPathDenies -benchmem
func BenchmarkDecideBashWithPathDenies(b *testing.B) {
	f := newFixture(b)
	e, err := NewEngine(f.sources(b, cfgBypass, "", false, nil), nil)
	if err != nil {
		b.Fatal(err)
	}
	call := Call{ID: "toolu_1", Tool: "bash", Input: map[string]any{"command": "git status --short && cat src/main.go | grep -n func"}, DocPath: f.doc, WorkspaceRoot: f.root}
	if v := e.Decide(context.Background(), call); v.Decision != Approve {
		b.Fatalf("unexpected %s", v.Format())
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Decide(context.Background(), call)
	}
}

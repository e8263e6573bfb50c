package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/procsup/proctest"
)

func TestNewEngineErrors(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, user, want string
	}{
		{"example must match", "[[tools.rules]]\nrule = \"bash(git status)\"\ndecision = \"approve\"\nmatch = [\"git status --short\"]\n",
			`user.toml:2: rule "bash(git status)": example "git status --short" must match`},
		{"notMatch example matches", "[tools]\n\n[[tools.rules]]\nrule = \"bash(git *)\"\ndecision = \"approve\"\nnotMatch = [\"git push\"]\n",
			`user.toml:4: rule "bash(git *)": notMatch example "git push" matches`},
		{"chained example is not one command", "[[tools.rules]]\nrule = \"bash(git status *)\"\ndecision = \"approve\"\nnotMatch = [\"git status && rm -rf /\"]\nmatch = [\"git status -s\"]\n", ""},
		{"deny example", "[[tools.rules]]\nrule = \"bash(rm -rf *)\"\ndecision = \"deny\"\nmatch = [\"rm -fr x\", \"sudo rm --recursive --force y\"]\nnotMatch = [\"rm x\"]\n", ""},
		{"path example", "[[tools.rules]]\nrule = \"write(src/**)\"\ndecision = \"approve\"\nmatch = [\"src/a/b.go\"]\nnotMatch = [\"docs/x\", \"/etc/x\"]\n", ""},
		{"bad decision", "[[tools.rules]]\nrule = \"bash(ls)\"\ndecision = \"maybe\"\n", `user.toml:2: rule "bash(ls)": decision "maybe" must be approve, ask or deny`},
		{"rule syntax", "[tools]\nautoApprove = [\n  \"$default\",\n  \"bash(go test *\",\n]\n", `user.toml:4: rule "bash(go test *": missing closing parenthesis`},
		{"two commands in a rule", "[tools]\ndeny = [\"bash(ls && rm x)\"]\n", `user.toml:2: rule "bash(ls && rm x)": a bash rule names one simple command`},
		{"unknown preset", "[tools]\nautoApprove = [\"$nope\"]\n", `user.toml:2: unknown preset "$nope"`},
		{"bad glob", "[tools]\nautoApprove = [\"read(src/[)\"]\n", `user.toml:2: rule "read(src/[)": pattern "src/[" is not a valid glob`},
		{"bad tool name", "[tools]\nautoApprove = [\"re ad\"]\n", `user.toml:2: rule "re ad"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewEngine(f.sources(t, tc.user, "", false, nil), nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestFrontmatterWarnings(t *testing.T) {
	f := newFixture(t)
	e, err := NewEngine(f.sources(t, "", "", false, []FrontmatterOp{{Path: "tools.auto_approve", Op: "append", Values: []any{"bash("}, Line: 2}}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := e.Warnings(); len(w) != 1 || !strings.Contains(w[0], "doc.chat:3") {
		t.Errorf("warnings %v", w)
	}
}

func TestExplainTrace(t *testing.T) {
	f := newFixture(t)
	fm := []FrontmatterOp{{Path: "tools.auto_approve", Op: "append", Values: []any{"bash"}, Line: 4}, {Path: "tools.auto_approve", Op: "remove", Values: []any{"write"}, Line: 5}}
	e, err := NewEngine(f.sources(t, "", "", false, fm), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Decide(context.Background(), Call{Tool: "bash", Input: map[string]any{"command": "date"}, DocPath: f.doc})
	out := v.Format()
	if first, _, _ := strings.Cut(out, "\n"); first != "require_approval" {
		t.Fatalf("first line %q", first)
	}
	for _, want := range []string{"frontmatter", "ignored: bash at " + f.doc + ":5 would approve `date`", "not trusted"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace lacks %q:\n%s", want, out)
		}
	}
	v = e.Decide(context.Background(), Call{Tool: "write", Input: map[string]any{"path": "log.txt"}, DocPath: f.doc})
	if !strings.Contains(v.Format(), "removed write (from $default) at "+f.doc+":6") && !strings.Contains(v.Format(), "removed write at "+f.doc+":6") {
		t.Errorf("trace should name the removal:\n%s", v.Format())
	}
	// Steps of the user layer carry file:line.
	u := f.settings(t, "user.toml", "[tools]\nautoApprove = [\n \"bash(go test *)\",\n]\n")
	e, _ = NewEngine(Sources{User: u, UserFile: "user.toml", WorkspaceRoot: f.root, DocPath: f.doc, Home: f.home, TempDir: f.tmp}, nil)
	v = e.Decide(context.Background(), Call{Tool: "bash", Input: map[string]any{"command": "go test ./..."}, DocPath: f.doc})
	var user Step
	for _, s := range v.Steps {
		if s.Resolver == "user" {
			user = s
		}
	}
	if v.Decision != Approve || user.Rule != "bash(go test *)" || user.File != "user.toml" || user.Line != 3 {
		t.Errorf("user step %+v\n%s", user, v.Format())
	}
}

// resolverScript writes an executable shell script into dir.
func resolverScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExternalResolvers(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	scripts := map[string]string{
		"ok":      resolverScript(t, dir, "ok.sh", `cat > `+seen+`; echo '{"decision":"approve","reason":"looks fine"}'`),
		"deny":    resolverScript(t, dir, "deny.sh", `cat >/dev/null; echo '{"decision":"deny","reason":"blocked by corp"}'`),
		"crash":   resolverScript(t, dir, "crash.sh", `echo boom >&2; exit 3`),
		"hang":    resolverScript(t, dir, "hang.sh", `sleep 30`),
		"garbage": resolverScript(t, dir, "garbage.sh", `cat >/dev/null; echo 'approve!!'`),
		"unknown": resolverScript(t, dir, "unknown.sh", `cat >/dev/null; echo '{"decision":"yes"}'`),
		// Only one object and white space: anything else is unreadable.
		"trailing": resolverScript(t, dir, "trailing.sh", `cat >/dev/null; echo '{"decision":"approve"}garbage'`),
		"two":      resolverScript(t, dir, "two.sh", `cat >/dev/null; echo '{"decision":"approve"} {"decision":"approve"}'`),
		"spaced":   resolverScript(t, dir, "spaced.sh", `cat >/dev/null; printf '{"decision":"approve","reason":"fine"}\n\n  \n'`),
	}
	for _, tc := range []struct {
		name   string
		want   Decision
		reason string
	}{
		{"ok", Approve, "looks fine"},
		{"deny", Deny, "blocked by corp"},
		{"crash", RequireApproval, "skipped: exit status 3: boom"},
		{"hang", RequireApproval, "skipped: timed out after 300ms"},
		{"garbage", RequireApproval, "skipped: unreadable answer"},
		{"unknown", RequireApproval, `skipped: unknown decision "yes"`},
		{"trailing", RequireApproval, "skipped: unreadable answer"},
		{"two", RequireApproval, "skipped: unreadable answer"},
		{"spaced", Approve, "fine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Only the hanging resolver meets its timeout; the others get
			// one no busy machine reaches (a shell script starting there can
			// take longer than 300 ms).
			timeout := "60000"
			if tc.name == "hang" {
				timeout = "300"
			}
			user := "[[resolvers]]\nname = \"" + tc.name + "\"\ncommand = \"" + scripts[tc.name] + "\"\ntimeoutMs = " + timeout + "\n"
			e, err := NewEngine(f.sources(t, user, "", false, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			v := e.Decide(context.Background(), Call{ID: "toolu_1", Tool: "calculator", Input: map[string]any{"expression": "1+1"}, DocPath: f.doc, DocURI: "file://" + f.doc})
			if time.Since(start) > 15*time.Second { // the hanging one sleeps 30 s
				t.Errorf("resolver was not stopped in time (%s)", time.Since(start))
			}
			if v.Decision != tc.want || !strings.Contains(v.Format(), tc.reason) {
				t.Errorf("got %s, want %s with %q\n%s", v.Decision, tc.want, tc.reason, v.Format())
			}
		})
	}
	var req map[string]any
	data, _ := os.ReadFile(seen)
	if err := json.Unmarshal(data, &req); err != nil || req["tool"] != "calculator" || req["id"] != "toolu_1" || req["uri"] != "file://"+f.doc || req["cwd"] != f.root {
		t.Errorf("resolver request %s (%v)", data, err)
	}
	// A resolver from an untrusted workspace is never run.
	ws := "[[resolvers]]\nname = \"ok\"\ncommand = \"" + scripts["ok"] + "\"\n"
	e, _ := NewEngine(f.sources(t, "", ws, false, nil), nil)
	if v := e.Decide(context.Background(), Call{Tool: "calculator", Input: map[string]any{}}); v.Decision != RequireApproval {
		t.Errorf("untrusted workspace resolver ran: %s", v.Format())
	}
}

func TestDecideNeverPanics(t *testing.T) {
	f := newFixture(t)
	e, _ := NewEngine(f.sources(t, cfgGo, "", false, nil), nil)
	for _, in := range []map[string]any{nil, {"command": 42}, {"path": []any{1}}, {"command": strings.Repeat("$(", 5000)}} {
		for _, tool := range []string{"bash", "read", "write", "", "x:y"} {
			v := e.Decide(context.Background(), Call{Tool: tool, Input: in})
			if v.Decision == Approve || v.Decision == "" {
				t.Errorf("%s %v: %s", tool, in, v.Decision)
			}
		}
	}
	// A zero Engine (no rules) must not panic either.
	var zero Engine
	if v := zero.Decide(context.Background(), Call{Tool: "bash"}); v.Decision != RequireApproval {
		t.Errorf("zero engine: %s", v.Format())
	}
}

// TestSuggestRule: "Always allow" offers the nearest rule that is still
// narrow: a subcommand rule, the exact command for interpreters, dangerous
// programs and unusual forms, the exact path outside the workspace, and
// nothing when no single rule covers the call.
func TestSuggestRule(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"bash", map[string]any{"command": "go test ./pkg/..."}, "bash(go test *)"},
		{"bash", map[string]any{"command": "go test"}, "bash(go test *)"},
		{"bash", map[string]any{"command": "/usr/bin/go test ./..."}, "bash(go test *)"},
		{"bash", map[string]any{"command": "go -C sub test ./..."}, "bash(go -C sub test *)"},
		{"bash", map[string]any{"command": "go $X ./..."}, ""},
		{"bash", map[string]any{"command": "go"}, "bash(go)"},
		{"bash", map[string]any{"command": "go -v"}, "bash(go -v)"},
		{"bash", map[string]any{"command": "git -C x status"}, "bash(git -C x status *)"},
		{"bash", map[string]any{"command": "git -c core.pager=id log"}, ""}, // git -c can run programs: no rule approves it
		{"bash", map[string]any{"command": "git status"}, "bash(git status *)"},
		{"bash", map[string]any{"command": "cd src && npm run test -- --watch"}, "bash(npm run *)"},
		{"bash", map[string]any{"command": "npx prettier --write ."}, "bash(npx prettier --write .)"},
		{"bash", map[string]any{"command": "npm exec foo"}, "bash(npm exec foo)"},
		{"bash", map[string]any{"command": "docker run --rm -v /:/h alpine"}, "bash(docker run --rm -v /:/h alpine)"},
		{"bash", map[string]any{"command": "make"}, "bash(make)"},
		{"bash", map[string]any{"command": "make lint"}, "bash(make lint *)"},
		{"bash", map[string]any{"command": "ls -la src"}, "bash(ls *)"},
		{"bash", map[string]any{"command": "rm -rf build"}, "bash(rm -rf build)"},
		{"bash", map[string]any{"command": "rm $X"}, ""},
		{"bash", map[string]any{"command": "python3 script.py"}, "bash(python3 script.py)"},
		{"bash", map[string]any{"command": "python3 -c 'print(1)'"}, "bash(python3 -c 'print(1)')"},
		{"bash", map[string]any{"command": "python3 $S"}, ""},
		{"bash", map[string]any{"command": "node x.js"}, "bash(node x.js)"},
		{"bash", map[string]any{"command": "perl -e 'print 1'"}, "bash(perl -e 'print 1')"},
		{"bash", map[string]any{"command": "awk '{print}' f"}, "bash(awk '{print}' f)"},
		{"bash", map[string]any{"command": "./run.sh --fast"}, "bash(./run.sh --fast)"},
		{"bash", map[string]any{"command": "echo $(date)"}, ""},
		{"bash", map[string]any{"command": "sh -c 'ls'"}, ""},
		{"bash", map[string]any{"command": "set -e; date"}, "bash(date *)"},
		{"bash", map[string]any{"command": "go test ./... && make lint"}, ""},
		{"bash", map[string]any{"command": "go test ./a && go test ./b"}, "bash(go test *)"},
		{"bash", map[string]any{"command": "cd src && go test ./..."}, "bash(go test *)"},
		{"bash", map[string]any{"command": "pwd; echo hi"}, "bash(echo *)"},
		{"bash", map[string]any{"command": "echo hi > /etc/x"}, ""},
		{"bash", map[string]any{"command": "echo hi > out.txt"}, "bash(echo *)"},
		{"write", map[string]any{"path": "src/pkg/a.go"}, "write(src/pkg/**)"},
		{"write", map[string]any{"path": "log.txt"}, "write(log.txt)"},
		{"write", map[string]any{"path": ".env"}, ""},
		{"write", map[string]any{"path": ".chatls.toml"}, ""},
		{"write", map[string]any{"path": "/etc/hosts"}, "write(/etc/hosts)"},
		{"read", map[string]any{"path": "/etc/hosts"}, "read(/etc/hosts)"},
		{"write", map[string]any{"path": "l/../x"}, "write(" + filepath.Join(filepath.Dir(f.root), "outside", "x") + ")"},
		{"ls", map[string]any{"path": "src"}, "ls(src/**)"},
		{"calculator", map[string]any{"expression": "1"}, "calculator"},
		{"slack:channels_list", map[string]any{}, "slack:channels_list"},
	} {
		got := SuggestRule(Call{Tool: tc.tool, Input: tc.input, DocPath: f.doc, WorkspaceRoot: f.root})
		if got != tc.want {
			t.Errorf("SuggestRule(%s %v) = %q, want %q", tc.tool, tc.input, got, tc.want)
		}
		if got == "bash" || strings.HasPrefix(got, "bash(go *") || strings.Contains(got, "/etc/**") {
			t.Errorf("too broad: %s", got)
		}
		if got == "" {
			continue
		}
		if _, err := parseRule(got, f.home); err != nil {
			t.Errorf("suggested rule %q does not parse: %v", got, err)
		}
	}
}

// A suggested rule approves the call it came from (when nothing else asks).
func TestSuggestedRuleApprovesItsCall(t *testing.T) {
	f := newFixture(t)
	for _, cmd := range []string{"go test ./pkg/...", "npm run test", "ls -la", "make lint", "make", "rm -rf build",
		"go -C src test ./...", "git -C src status", "python3 -c 'print(1)'", "awk '{print}' f", "./run.sh --fast",
		"go test ./a && go test ./b", "cd src && go test ./...", "pwd; echo hi"} {
		call := Call{Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root}
		rule := SuggestRule(call)
		if rule == "" {
			t.Errorf("%s: no suggestion", cmd)
			continue
		}
		e, err := NewEngine(f.sources(t, "[tools]\nautoApproveAppend = [\"\"\"\n"+rule+"\"\"\"]\n", "", false, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		if v := e.Decide(context.Background(), call); v.Decision != Approve {
			t.Errorf("%s with %s: %s", cmd, rule, v.Format())
		}
	}
}

func TestDecisionLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "decisions.jsonl")
	l, err := OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			code := i
			now := time.Now()
			if err := l.Write(LogEntry{Document: "/d.chat", ToolID: "t", Tool: "bash", InputHash: InputHash(map[string]any{"command": "ls"}),
				Decision: "approve", Source: "rule", Start: &now, ExitStatus: &code, Trace: []Step{{Resolver: "user", Decision: Approve}}}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	l.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines", len(lines))
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"time", "document", "tool_id", "tool", "input_hash", "decision", "source", "start", "exit_status", "truncated"} {
		if _, ok := m[k]; !ok {
			t.Errorf("log line lacks %q: %s", k, lines[0])
		}
	}
	if InputHash(map[string]any{"a": 1, "b": 2}) != InputHash(map[string]any{"b": 2, "a": 1}) {
		t.Error("input hash depends on key order")
	}
}

func TestCheckCommand(t *testing.T) {
	f := newFixture(t)
	cfg := filepath.Join(f.home, "config.toml")
	if err := os.WriteFile(cfg, []byte("[tools]\nautoAprove = []\ndeny = [\"bash(rm *)\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v, warns, err := CheckCommand(context.Background(), CheckRequest{Tool: "bash", Input: `{"command":"rm -f x"}`, ConfigPath: cfg, WorkspaceRoot: f.root, DocPath: f.doc})
	if err != nil || v.Decision != Deny {
		t.Fatalf("%v %s", err, v.Format())
	}
	if len(warns) != 1 || !strings.Contains(warns[0].String(), `did you mean "tools.autoApprove"`) {
		t.Errorf("warnings %v", warns)
	}
	if _, _, err := CheckCommand(context.Background(), CheckRequest{Tool: "bash", Input: `[1]`, ConfigPath: cfg}); err == nil {
		t.Error("non-object input accepted")
	}
	_ = config.WorkspaceFile
}

// A resolver runs under a supervisor like every process chatls starts: when
// it times out, what it started dies with it, also a process that left its
// group with setsid.
func TestTimedOutResolverLeavesNothingBehind(t *testing.T) {
	proctest.Skip(t)
	f := newFixture(t)
	marker := fmt.Sprintf("chatls-resolver-child-%d", os.Getpid())
	started := filepath.Join(t.TempDir(), "started")
	script := resolverScript(t, t.TempDir(), "spawn.sh",
		`(setsid bash -c 'exec -a `+marker+` sleep 300' &); bash -c 'exec -a `+marker+` sleep 300' & `+
			`while [ "$(pgrep -fc '^`+marker+`')" -lt 2 ]; do sleep 0.01; done; touch `+started+`; sleep 30`)
	// 10 s to start its two children (they are up in milliseconds on an
	// idle machine; 500 ms was not always enough on a busy one) before it
	// sleeps past its timeout.
	user := "[[resolvers]]\nname = \"spawn\"\ncommand = \"" + script + "\"\ntimeoutMs = 10000\n"
	e, err := NewEngine(f.sources(t, user, "", false, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	v := e.Decide(context.Background(), Call{ID: "c", Tool: "bash", Input: map[string]any{"command": "ls"}, DocPath: f.doc, WorkspaceRoot: f.root})
	if v.Decision != RequireApproval || !strings.Contains(v.Format(), "timed out") {
		t.Fatalf("decision %s\n%s", v.Decision, v.Format())
	}
	if _, err := os.Stat(started); err != nil {
		t.Fatal("the resolver did not start its children in time")
	}
	proctest.AwaitArg0(t, 10*time.Second, marker, "the resolver's children after its timeout", func(n int) bool { return n == 0 })
}

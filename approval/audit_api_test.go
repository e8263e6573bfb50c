package approval

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/config"
)

// Defect 7: a file with a rule that does not compile, or an example that
// fails, is refused by config.LoadFile with file:line, so the server keeps
// its last good configuration instead of failing every decision.
func TestLoadFileRejectsBadRules(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, want string }{
		{"syntax", "[tools]\nautoApprove = [\n  \"$default\",\n  \"bash(go test\",\n]\n", `:4: rule "bash(go test": missing closing parenthesis`},
		{"deny", "[tools]\ndeny = [\"bash(ls && rm x)\"]\n", `:2: rule "bash(ls && rm x)": a bash rule names one simple command`},
		{"append", "[tools]\nautoApproveAppend = [\"read(src/[)\"]\n", `:2: rule "read(src/[)"`},
		{"preset", "[tools.presets.\"$x\"]\napprove = [\"bash(\"]\n", `:2: rule "bash("`},
		{"example", "[tools]\nautoApprove = [\"$default\"]\n\n[[tools.rules]]\nrule = \"bash(git status *)\"\ndecision = \"approve\"\nmatch = [\"git push\"]\n", `:5: rule "bash(git status *)": example "git push" must match`},
		{"notMatch", "[[tools.rules]]\nrule = \"bash(git *)\"\ndecision = \"approve\"\nnotMatch = [\"git push\"]\n", `:2: rule "bash(git *)": notMatch example "git push" matches`},
		{"decision", "[[tools.rules]]\nrule = \"bash(ls)\"\ndecision = \"maybe\"\n", `:2: rule "bash(ls)": decision "maybe"`},
		{"resolver", "[[resolvers]]\nname = \"x\"\n", `resolver "x" has no command`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".toml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := config.LoadFile(path)
			if err == nil || !strings.Contains(err.Error(), path+tc.want) && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadFile error %v, want it to contain %q", err, path+tc.want)
			}
			if strings.Count(err.Error(), "last good") > 0 {
				t.Errorf("the message should leave 'last good configuration' to the caller: %v", err)
			}
		})
	}
	good := filepath.Join(dir, "good.toml")
	os.WriteFile(good, []byte("[tools]\nautoApprove = [\"$default\", \"$mine\", \"bash(go test *)\"]\n[[tools.rules]]\nrule = \"bash(git status *)\"\ndecision = \"approve\"\nmatch = [\"git status -s\"]\n"), 0o644)
	if s, _, err := config.LoadFile(good); err != nil || len(s.Tools.AutoApprove) != 3 {
		t.Fatalf("a good file (with a preset defined elsewhere) must load: %v", err)
	}
	// Editor settings are checked the same way.
	if _, _, err := config.DecodeJSON([]byte(`{"tools": {"autoApprove": ["bash(go test"]}}`)); err == nil || !strings.Contains(err.Error(), "editor settings") || !strings.Contains(err.Error(), "bash(go test") {
		t.Errorf("DecodeJSON error %v", err)
	}
	if _, _, err := config.DecodeJSON([]byte(`{"tools": {"autoApprove": ["bash(go test *)"]}}`)); err != nil {
		t.Errorf("good editor settings refused: %v", err)
	}
}

// Defect 9: the decision log entry carries the decision, the deciding rule
// with file and line, and the trace.
func TestVerdictLogEntry(t *testing.T) {
	f := newFixture(t)
	u := f.settings(t, "user.toml", "[tools]\nautoApprove = [\n \"bash(go test *)\",\n]\ndeny = [\"bash(rm *)\"]\n")
	e, err := NewEngine(Sources{User: u, UserFile: "/cfg/user.toml", WorkspaceRoot: f.root, DocPath: f.doc, Home: f.home, TempDir: f.tmp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	l, err := OpenDecisionLog(path)
	if err != nil {
		t.Fatal(err)
	}
	input := map[string]any{"command": "go test ./..."}
	v := e.Decide(context.Background(), Call{ID: "t1", Tool: "bash", Input: input, DocPath: f.doc})
	if err := l.Write(v.LogEntry(LogEntry{Document: "file:///d.chat", ToolID: "t1", Tool: "bash", InputHash: InputHash(input), Source: "autopilot"})); err != nil {
		t.Fatal(err)
	}
	v = e.Decide(context.Background(), Call{ID: "t2", Tool: "bash", Input: map[string]any{"command": "rm x"}, DocPath: f.doc})
	if err := l.Write(v.LogEntry(LogEntry{ToolID: "t2", Tool: "bash", Source: "rule"})); err != nil {
		t.Fatal(err)
	}
	v = e.Decide(context.Background(), Call{ID: "t3", Tool: "bash", Input: map[string]any{"command": "make"}, DocPath: f.doc})
	if err := l.Write(v.LogEntry(LogEntry{ToolID: "t3", Tool: "bash", Decision: "approve", Source: "user edit"})); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	var got []LogEntry
	for _, line := range lines {
		var e LogEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if g := got[0]; g.Decision != "approve" || g.Rule != "bash(go test *)" || g.File != "/cfg/user.toml" || g.Line != 3 || len(g.Trace) < 4 || g.Trace[1].Resolver != "user" {
		t.Errorf("approve entry %+v", g)
	}
	if g := got[1]; g.Decision != "deny" || g.Rule != "bash(rm *)" || g.Line != 5 || !strings.Contains(g.Reason, "denied") {
		t.Errorf("deny entry %+v", g)
	}
	// A run the user approved keeps the caller's decision; the trace says what the policy said.
	if g := got[2]; g.Decision != "approve" || g.Rule != "" || len(g.Trace) == 0 || !strings.Contains(lines[2], `"decision":"require_approval"`) {
		t.Errorf("user edit entry %+v\n%s", g, lines[2])
	}
}

// Defect 6: the user's own config directory (and a --config file) are
// sensitive: writing them needs a rule that names them.
func TestUserConfigIsSensitive(t *testing.T) {
	f := newFixture(t)
	xdg := filepath.Join(f.home, "xdg")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	custom := filepath.Join(f.home, "mycfg", "policy.toml")
	src := f.sources(t, "[sandbox]\nwritable = [\"{home}\"]\n", "", false, nil)
	src.UserFile = custom
	e, err := NewEngine(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	decide := func(tool string, input map[string]any) Decision {
		return e.Decide(context.Background(), Call{Tool: tool, Input: input, DocPath: f.doc, WorkspaceRoot: f.root}).Decision
	}
	for _, p := range []string{filepath.Join(xdg, "chatls", "config.toml"), filepath.Join(xdg, "chatls", "other.toml"), custom} {
		if d := decide("write", map[string]any{"path": p}); d != RequireApproval {
			t.Errorf("write %s: %s", p, d)
		}
	}
	if d := decide("write", map[string]any{"path": filepath.Join(f.home, "mycfg", "notes.txt")}); d != Approve {
		t.Errorf("a neighbour of the config file is not sensitive: %s", d)
	}
	if d := decide("write", map[string]any{"path": filepath.Join(xdg, "other", "x")}); d != Approve {
		t.Errorf("other tools' config is not chatls's: %s", d)
	}
}

// Defect 11: a broken configuration still answers with a decision word.
func TestCheckCommandBrokenConfig(t *testing.T) {
	f := newFixture(t)
	cfg := filepath.Join(f.home, "config.toml")
	os.WriteFile(cfg, []byte("[tools]\nautoApprove = [\"bash(ls *)\", \"bash(go test\"]\n"), 0o644)
	v, _, err := CheckCommand(context.Background(), CheckRequest{Tool: "bash", Input: `{"command":"ls"}`, ConfigPath: cfg, WorkspaceRoot: f.root})
	if err != nil {
		t.Fatal(err)
	}
	if v.Decision != RequireApproval || !strings.Contains(v.Format(), cfg+":2: rule \"bash(go test\"") {
		t.Errorf("%s", v.Format())
	}
}

// The directories a call is judged against are resolved when the engine is
// built: replacing the document's directory by a symlink afterwards does
// not move the writable set (it would make the link's target writable).
func TestWritableSetIsPinned(t *testing.T) {
	f := newFixture(t)
	chats := filepath.Join(f.root, "chats")
	outside := filepath.Join(filepath.Dir(f.root), "outside", "sub")
	if err := os.MkdirAll(chats, 0o755); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(chats, "doc.chat")
	src := f.sources(t, "", "", false, nil)
	src.DocPath = doc
	e, err := NewEngine(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := Call{Tool: "write", Input: map[string]any{"path": "x.txt"}, DocPath: doc, WorkspaceRoot: f.root}
	if v := e.Decide(context.Background(), call); v.Decision != Approve {
		t.Fatalf("before the swap: %s", v.Format())
	}
	if err := os.Rename(chats, chats+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, chats); err != nil {
		t.Fatal(err)
	}
	if v := e.Decide(context.Background(), call); v.Decision != RequireApproval {
		t.Errorf("after the document's directory became a link to %s: %s", outside, v.Format())
	}
}

// Suggested rules with quotes survive being written into a config file and
// loaded back (AddRule + LoadFile with rule validation).
func TestSuggestedRulesRoundTripThroughConfig(t *testing.T) {
	f := newFixture(t)
	path := filepath.Join(t.TempDir(), "config.toml")
	var want []string
	for _, cmd := range []string{"awk '{print $1}' f", "python3 -c 'print(\"hi\")'", `perl -e 'print "a\\b"'`, "go test ./..."} {
		rule := SuggestRule(Call{Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: f.doc, WorkspaceRoot: f.root})
		if rule == "" {
			t.Fatalf("%s: no suggestion", cmd)
		}
		if err := config.AddRule(path, rule, "autoApprove"); err != nil {
			t.Fatalf("AddRule(%s): %v", rule, err)
		}
		want = append(want, rule)
	}
	s, _, err := config.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(s.Tools.AutoApproveAppend, "\n") != strings.Join(want, "\n") {
		t.Errorf("rules after the round trip:\n%q\nwant\n%q", s.Tools.AutoApproveAppend, want)
	}
}

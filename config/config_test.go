package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/google/go-cmp/cmp"
)

func TestDecodeJSON(t *testing.T) {
	for _, raw := range []string{
		`{"tools": {"autoApprove": ["$default", "bash(go test *)"]}, "autopilot": false}`,
		`{"chatls": {"tools": {"autoApprove": ["$default", "bash(go test *)"]}, "autopilot": false}}`,
	} {
		s, warns, err := DecodeJSON(json.RawMessage(raw))
		if err != nil || len(warns) != 0 {
			t.Fatalf("%s: %v %v", raw, err, warns)
		}
		if diff := cmp.Diff([]string{"$default", "bash(go test *)"}, s.Tools.AutoApprove); diff != "" {
			t.Error(diff)
		}
		if s.Autopilot == nil || *s.Autopilot {
			t.Errorf("autopilot not decoded from %s", raw)
		}
	}
	if s, w, err := DecodeJSON(nil); err != nil || w != nil || s.Tools.AutoApprove != nil {
		t.Errorf("null settings: %v %v", err, w)
	}
	_, _, err := DecodeJSON(json.RawMessage(`{"tools": {"maxConcurrent": "four"}}`))
	if err == nil || !strings.Contains(err.Error(), "tools.maxConcurrent") {
		t.Errorf("type error should name the key: %v", err)
	}
	_, warns, _ := DecodeJSON(json.RawMessage(`{"tools": {"autoAprove": []}, "auto_pilot": true}`))
	want := []string{
		`unknown key "auto_pilot" (did you mean "autopilot"?)`,
		`unknown key "tools.autoAprove" (did you mean "tools.autoApprove"?)`,
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.Message)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	if s, w, err := LoadFile(filepath.Join(dir, "missing.toml")); err != nil || w != nil || s.Tools.AutoApprove != nil {
		t.Fatalf("missing file: %v %v", err, w)
	}
	good := filepath.Join(dir, "good.toml")
	testfs.Write(t, good, `# user settings
autopilot = true
[tools]
autoAprove = ["x"]
autoApprove = [
  "$default",   # keep
  "bash(go test *)",
]
[[tools.rules]]
rule = "bash(git status)"
decision = "approve"
matchh = ["git status"]
`)
	s, warns, err := LoadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if s.Line("tools.autoApprove", "bash(go test *)") != 7 || s.Line("tools.rules", "bash(git status)") != 10 {
		t.Errorf("lines: %v", s.Lines)
	}
	var got []string
	for _, w := range warns {
		got = append(got, w.String())
	}
	want := []string{
		good + `:4: unknown key "tools.autoAprove" (did you mean "tools.autoApprove"?)`,
		good + `:12: unknown key "tools.rules[0].matchh" (did you mean "tools.rules[0].match"?)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}

	bad := filepath.Join(dir, "bad.toml")
	testfs.Write(t, bad, "[tools]\nautoApprove = [\"a\"\ndeny = []\n")
	if _, _, err := LoadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":3:") {
		t.Errorf("malformed TOML should report file:line: %v", err)
	}
	typed := filepath.Join(dir, "typed.toml")
	testfs.Write(t, typed, "[tools]\nmaxConcurrent = \"four\"\n")
	if _, _, err := LoadFile(typed); err == nil || !strings.HasPrefix(err.Error(), typed+":2:") {
		t.Errorf("type error should report file:line: %v", err)
	}
}

func TestPaths(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	t.Setenv("XDG_STATE_HOME", "/state")
	if UserConfigPath() != "/cfg/chatls/config.toml" || StateDir() != "/state/chatls" {
		t.Errorf("%s %s", UserConfigPath(), StateDir())
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/ignored")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if UserConfigPath() != "/home/u/.config/chatls/config.toml" || StateDir() != "/home/u/.local/state/chatls" {
		t.Errorf("%s %s", UserConfigPath(), StateDir())
	}
}

func TestMerge(t *testing.T) {
	e := Merge()
	if !e.Autopilot || e.PlaceholderStyle != "fence" || e.MaxConcurrent != 4 || e.DefaultTimeout != 30 ||
		e.BashTimeout != 120 || !e.Sandbox.Enabled || e.Sandbox.Mode != SandboxAuto || e.Sandbox.Required || e.Sandbox.Network || e.InlayHintsMaxLength != 80 {
		t.Errorf("defaults: %+v", e)
	}
	f, four, ten := false, 4, 10
	one := 1
	e = Merge(Settings{Autopilot: &f, Tools: Tools{MaxConcurrent: &ten}}, Settings{Tools: Tools{MaxConcurrent: &one, Bash: BashSettings{Timeout: &four}}})
	if e.Autopilot || e.MaxConcurrent != 1 || e.BashTimeout != 4 {
		t.Errorf("later layers must override: %+v", e)
	}
	u := UntrustedView(Settings{Tools: Tools{RequireApproval: &f, Plugins: []Plugin{{Name: "x"}}}, Sandbox: Sandbox{Writable: []string{"/"}, Enabled: SandboxOn.Ptr()}})
	if u.Tools.RequireApproval != nil || u.Tools.Plugins != nil || u.Sandbox.Writable != nil || u.Sandbox.Enabled == nil {
		t.Errorf("untrusted view keeps only narrowing settings: %+v", u)
	}
}

func TestRootFor(t *testing.T) {
	roots := []string{"/w", "/w/inner", "/other"}
	for path, want := range map[string]string{
		"/w/a.chat":         "/w",
		"/w/inner/b/c.chat": "/w/inner",
		"/wx/d.chat":        "/wx", // a sibling with a common prefix is not inside /w
		"/elsewhere/e.chat": "/elsewhere",
		"":                  "/w",
		"/other":            "/other",
		"/w/inner.chat":     "/w",
		"/w/inner/f.chat":   "/w/inner",
		"/other/sub/g.chat": "/other",
		"/no-roots/h.chat":  "/no-roots",
	} {
		if got := RootFor(roots, path); got != want {
			t.Errorf("RootFor(%q) = %q, want %q", path, got, want)
		}
	}
	if got := RootFor(nil, ""); got != "." {
		t.Errorf("no roots, no path: %q", got)
	}
}

package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// sandbox.enabled is true, false or "auto" in JSON and TOML; the default is
// "auto" with no network; an untrusted workspace may turn it on, never off.
func TestSandboxModeSetting(t *testing.T) {
	for _, tc := range []struct {
		json, toml string
		want       SandboxMode
	}{
		{`{"sandbox":{"enabled":true}}`, "[sandbox]\nenabled = true\n", SandboxOn},
		{`{"sandbox":{"enabled":false}}`, "[sandbox]\nenabled = false\n", SandboxOff},
		{`{"sandbox":{"enabled":"auto"}}`, "[sandbox]\nenabled = \"auto\"\n", SandboxAuto},
	} {
		j, _, err := DecodeJSON(json.RawMessage(tc.json))
		if err != nil || j.Sandbox.Enabled == nil || *j.Sandbox.Enabled != tc.want {
			t.Errorf("JSON %s: %v %v", tc.json, j.Sandbox.Enabled, err)
		}
		tm, _, err := ParseTOML("c.toml", []byte(tc.toml))
		if err != nil || tm.Sandbox.Enabled == nil || *tm.Sandbox.Enabled != tc.want {
			t.Errorf("TOML %q: %v %v", tc.toml, tm.Sandbox.Enabled, err)
		}
		e := Merge(j)
		if e.Sandbox.Mode != tc.want || e.Sandbox.Enabled != (tc.want != SandboxOff) || e.Sandbox.Required != (tc.want == SandboxOn) {
			t.Errorf("%s: merged %+v", tc.json, e.Sandbox)
		}
		back, _ := json.Marshal(j.Sandbox)
		if !strings.Contains(string(back), strings.TrimSuffix(strings.TrimPrefix(tc.json, `{"sandbox":`), "}")) {
			t.Errorf("round trip of %s: %s", tc.json, back)
		}
	}
	if _, _, err := DecodeJSON(json.RawMessage(`{"sandbox":{"enabled":"yes"}}`)); err == nil {
		t.Error(`"yes" must be refused`)
	}
	if _, _, err := ParseTOML("c.toml", []byte("[sandbox]\nenabled = 1\n")); err == nil || !strings.Contains(err.Error(), "c.toml") {
		t.Errorf("1 must be refused with the file: %v", err)
	}
	if u := UntrustedView(Settings{Sandbox: Sandbox{Enabled: SandboxOff.Ptr(), Network: new(true), Env: []string{"GITHUB_TOKEN"}}}); u.Sandbox.Enabled != nil || u.Sandbox.Network != nil || u.Sandbox.Env != nil {
		t.Errorf("an untrusted workspace cannot turn the sandbox off, the network on, or pass variables: %+v", u.Sandbox)
	}
	if e := Merge(Settings{Sandbox: Sandbox{Enabled: SandboxOff.Ptr()}}, UntrustedView(Settings{Sandbox: Sandbox{Enabled: SandboxOn.Ptr()}})); !e.Sandbox.Required {
		t.Errorf("an untrusted workspace may require the sandbox: %+v", e.Sandbox)
	}
}

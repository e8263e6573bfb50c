package config

import "testing"

func TestTargetsComeOnlyFromTrustedLayers(t *testing.T) {
	user := Settings{Targets: map[string]TargetSettings{"build": {Type: "ssh", Host: "b"}, "box": {Type: "container", Container: "c", Untrusted: true}}}
	ws := Settings{Target: "build", Targets: map[string]TargetSettings{"evil": {Type: "ssh", Host: "attacker"}}}
	l := Layers{Workspaces: map[string]Settings{"/w": ws}, Roots: []string{"/w"}}
	l.UserFile = user
	untrusted := l.Resolve(func(string) bool { return false }).For("/w")
	if _, ok := untrusted.Targets["evil"]; ok {
		t.Fatal("an untrusted workspace defined a target")
	}
	if untrusted.Target != "build" || !untrusted.TargetFromUntrusted {
		t.Fatalf("choice %q from untrusted %v", untrusted.Target, untrusted.TargetFromUntrusted)
	}
	trusted := l.Resolve(func(string) bool { return true }).For("/w")
	if _, ok := trusted.Targets["evil"]; !ok || trusted.TargetFromUntrusted {
		t.Fatalf("a trusted workspace's targets: %+v", trusted.Targets)
	}
}

package session

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
)

func TestChooseTarget(t *testing.T) {
	eff := config.Effective{Targets: map[string]config.TargetSettings{
		"build": {Type: "ssh", Host: "build.example.com"},
		"box":   {Type: "container", Container: "c", Untrusted: true},
	}}
	pool := &targetPool{}
	defer pool.Close()
	asked := 0
	untrusted := func() bool { asked++; return false }
	doc := func(target string) *chatdoc.Document {
		return chatdoc.Parse("```lua\nflemma.opt.target = \"" + target + "\"\n```\n@You:\nhi\n")
	}

	if got := chooseTarget(eff, chatdoc.Parse("@You:\nhi\n"), untrusted, pool); got != nil || asked != 0 {
		t.Fatalf("no choice: %+v (trust asked %d times)", got, asked)
	}
	if got := chooseTarget(eff, doc("box"), untrusted, pool); got == nil || got.Problem != "" || got.Name != "box" {
		t.Fatalf("an untrusted document choosing an untrusted = true target: %+v", got)
	}
	if got := chooseTarget(eff, doc("build"), untrusted, pool); got == nil || !strings.Contains(got.Problem, "chosen by an untrusted workspace or document") {
		t.Fatalf("an untrusted document choosing build: %+v", got)
	}
	if got := chooseTarget(eff, doc("build"), func() bool { return true }, pool); got == nil || got.Problem != "" {
		t.Fatalf("a trusted document choosing build: %+v", got)
	}
	if got := chooseTarget(eff, doc("nowhere"), untrusted, pool); got == nil || !strings.Contains(got.Problem, "not defined in your trusted settings") {
		t.Fatalf("an unknown target: %+v", got)
	}
	eff.Target, eff.TargetFromUntrusted = "build", true
	if got := chooseTarget(eff, nil, untrusted, pool); got == nil || got.Problem == "" {
		t.Fatalf("an untrusted workspace's settings choosing build: %+v", got)
	}
	a := chooseTarget(eff, doc("box"), untrusted, pool)
	if b := chooseTarget(eff, doc("box"), untrusted, pool); a != b {
		t.Fatal("the same target was built twice: its connection would not be shared")
	}
}

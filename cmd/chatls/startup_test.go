package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// Every chatls command pays for its packages' initialisation, and most
// never compile a schema or read a program's options. The JSON Schema
// library compiles its metaschemas on first use (third_party/jsonschema/
// CHATLS.md; upstream's init made 21,000 allocations), approval reads its
// option tables on first use (3,500 allocations, ~1 ms at start before).
func TestCostlyTablesInitialiseLazily(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	traced := regexp.MustCompile(`(?m)^init (\S+) @`).FindAllSubmatch(out, -1)
	if len(traced) < 50 {
		t.Fatalf("GODEBUG=inittrace=1 traced %d packages; the check below would see nothing", len(traced))
	}
	for pkg, why := range map[string]string{
		"github.com/santhosh-tekuri/jsonschema/v6": "the schema library compiles its metaschemas at start again",
		"github.com/chatls/chatls/approval":        "approval reads its programs' option tables at start again (they are read on first use)",
	} {
		m := regexp.MustCompile(`(?m)^init ` + regexp.QuoteMeta(pkg) + ` @.* (\d+) allocs$`).FindSubmatch(out)
		if m == nil {
			continue // nothing to initialise at all
		}
		if allocs, _ := strconv.Atoi(string(m[1])); allocs > 1000 {
			t.Errorf("%s's initialisation made %d allocations: %s", pkg, allocs, why)
		}
	}
}

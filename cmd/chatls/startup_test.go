package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// The JSON Schema library compiles its metaschemas on first use, not while
// the process starts (third_party/jsonschema/CHATLS.md): every chatls
// command pays for its packages' initialisation, and most never compile a
// schema. Upstream's init made 21,000 allocations.
func TestSchemaLibraryInitialisesLazily(t *testing.T) {
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
	m := regexp.MustCompile(`(?m)^init github\.com/santhosh-tekuri/jsonschema/v6 @.* (\d+) allocs$`).FindSubmatch(out)
	if m == nil {
		return // nothing to initialise at all
	}
	if allocs, _ := strconv.Atoi(string(m[1])); allocs > 1000 {
		t.Errorf("the schema library's initialisation made %d allocations: it compiles its metaschemas at start again", allocs)
	}
}

package approval

import (
	"fmt"
	"strings"
	"testing"
)

// lits makes literal words.
func lits(s string) []word {
	var out []word
	for _, f := range strings.Fields(s) {
		if f == "$X" {
			out = append(out, word{dyn: true})
			continue
		}
		out = append(out, word{text: f, lead: len(f)})
	}
	return out
}

// TestOptionParse pins getopt_long's rules that the wrapper and writer
// tables rely on: optional values attach only, unique prefixes expand,
// ambiguous or unknown options and run-time words make the parse uncertain.
func TestOptionParse(t *testing.T) {
	xargs := wrappers["xargs"].opts
	env := wrappers["env"].opts
	cp := writers["cp"].opts
	curl := curlOpts
	show := func(p optParse) string {
		var parts []string
		for _, h := range p.opts {
			if h.has {
				parts = append(parts, h.name+"="+displayWord(h.value))
			} else {
				parts = append(parts, h.name)
			}
		}
		var ops []string
		for _, o := range p.operands {
			ops = append(ops, displayWord(o))
		}
		return fmt.Sprintf("%s | %s | rest=%d | unknown=%v abbr=%v dyn=%v", strings.Join(parts, " "), strings.Join(ops, " "), p.rest, p.unknown, p.abbreviated, p.dynOpt)
	}
	for _, tc := range []struct {
		t    *optTable
		args string
		want string
	}{
		{xargs, "-l rm ls", "--max-lines |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{xargs, "-l2 rm", "--max-lines=2 |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{xargs, "--max-lines rm ls", "--max-lines |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{xargs, "--max-lines=3 rm", "--max-lines=3 |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{xargs, "-L 3 rm", "-L=3 |  | rest=2 | unknown=[] abbr=[] dyn=false"},
		{xargs, "-I {} rm {}", "-I={} |  | rest=2 | unknown=[] abbr=[] dyn=false"},
		{xargs, "--arg ls rm", "--arg-file=ls |  | rest=2 | unknown=[] abbr=[--arg] dyn=false"},
		{xargs, "--max ls", " |  | rest=-1 | unknown=[--max] abbr=[] dyn=false"}, // max-lines, max-args… ambiguous
		{xargs, "-0t rm", "--null --verbose |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{env, "--uns ls rm", "--unset=ls |  | rest=2 | unknown=[] abbr=[--uns] dyn=false"},
		{env, "--ignore-signal rm", "--ignore-signal |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{env, "-iuHOME ls", "--ignore-environment --unset=HOME |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{env, "--frob rm", " |  | rest=-1 | unknown=[--frob] abbr=[] dyn=false"},
		{env, "$X rm", " |  | rest=-1 | unknown=[] abbr=[] dyn=true"},
		{env, "-- -rm", " |  | rest=1 | unknown=[] abbr=[] dyn=false"},
		{cp, "a b -t /etc", "--target-directory=/etc | a b | rest=-1 | unknown=[] abbr=[] dyn=false"},
		{cp, "--target /etc a", "--target-directory=/etc | a | rest=-1 | unknown=[] abbr=[--target] dyn=false"},
		{cp, "-uv a b", "-u --verbose | a b | rest=-1 | unknown=[] abbr=[] dyn=false"},
		{cp, "--update=none a b", "--update=none | a b | rest=-1 | unknown=[] abbr=[] dyn=false"},
		{cp, "$X a b", " | $… a b | rest=-1 | unknown=[] abbr=[] dyn=true"},
		{cp, "-- -t a", " | -t a | rest=-1 | unknown=[] abbr=[] dyn=false"},
		{cp, "--force=1 a b", " | a b | rest=-1 | unknown=[--force=1] abbr=[] dyn=false"},
		{curl, "--out /etc/x u", " | /etc/x u | rest=-1 | unknown=[--out] abbr=[] dyn=false"}, // output, output-dir
		{curl, "-sSLo f u", "--silent --show-error --location --output=f | u | rest=-1 | unknown=[] abbr=[] dyn=false"},
		{curl, "--dump /etc/x u", "--dump-header=/etc/x | u | rest=-1 | unknown=[] abbr=[--dump] dyn=false"},
	} {
		if got := show(tc.t.parse(lits(tc.args))); got != tc.want {
			t.Errorf("parse %q:\n got %s\nwant %s", tc.args, got, tc.want)
		}
	}
}

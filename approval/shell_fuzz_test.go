package approval

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzShellAnalysis: no input panics or hangs, nothing the analysis can't
// read is approved by a broad allow rule, and no approved command contains
// a construct that runs code or changes what later commands run (checked by
// dangerousConstruct, which walks the syntax tree on its own).
//
//	go test ./approval -run '^$' -fuzz FuzzShellAnalysis -fuzztime 60s
func FuzzShellAnalysis(f *testing.F) {
	for _, r := range decideRows() {
		if c, ok := r.input["command"].(string); ok {
			f.Add(c)
		}
	}
	f.Add("a=$(b) c <<<$(d) | e <(f) >(g) & h ${i:-$(j)} $((k[$(l)])) `m` {n,o} p* 'q' \"r$s\" \\t $'\\x75'")
	f.Add("for ((i=0;i<3;i++)); do coproc x { y; }; done; select a in b; do :; done; [[ -v a[$(b)] ]]")
	f.Add("wait $ ")
	f.Add("wait ''")
	f.Add("y='a['; z='$(id)]'; declare -i x; x=$y$z; echo ${!y} ${y@P}; true & wait -n -p \"$y\"; set -k")
	for _, r := range bypassRows() {
		f.Add(r.cmd)
	}
	fx := newFixture(f)
	e, err := NewEngine(fx.sources(f, "[tools]\nautoApprove = [\"bash(echo *)\", \"bash(ls *)\"]\ndeny = [\"bash(rm *)\"]\n", "", false, nil), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		done := make(chan Verdict, 1)
		go func() {
			analyzeShell(cmd, fx.root, fx.home)
			done <- e.Decide(context.Background(), Call{Tool: "bash", Input: map[string]any{"command": cmd}, DocPath: fx.doc, WorkspaceRoot: fx.root})
		}()
		select {
		case v := <-done:
			if v.Decision == "" {
				t.Fatalf("empty decision for %q", cmd)
			}
			if v.Decision != Approve {
				return
			}
			reading, why := bashReading(cmd)
			if why != "" {
				t.Fatalf("approved %q: %s", cmd, why)
			}
			a := analyzeShell(reading, fx.root, fx.home)
			if len(a.opaque) > 0 {
				t.Fatalf("approved an opaque command %q: %v", cmd, a.opaque)
			}
			if why := dangerousConstruct(cmd); why != "" {
				t.Fatalf("approved %q, which has %s", cmd, why)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("analysis hangs on %q", cmd)
		}
	})
}

// dangerousConstruct names a construct that must never be auto-approved;
// "" when there is none. It is deliberately simpler (and stricter) than the
// analysis: the fuzzer checks that the two agree on approved commands.
func dangerousConstruct(cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "a parse error"
	}
	found := ""
	note := func(s string) {
		if found == "" {
			found = s
		}
	}
	namesIn := func(n syntax.Node) bool {
		has := false
		syntax.Walk(n, func(m syntax.Node) bool {
			switch m := m.(type) {
			case *syntax.ParamExp:
				has = true
			case *syntax.Lit:
				if m.Value != "" && !isNumberLit(m.Value) {
					has = true
				}
			}
			return !has
		})
		return has
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			note("a command or process substitution")
		case *syntax.ArithmExp:
			if namesIn(n) {
				note("arithmetic on names")
			}
		case *syntax.ArithmCmd:
			if namesIn(n) {
				note("arithmetic on names")
			}
		case *syntax.LetClause:
			note("let")
		case *syntax.ParamExp:
			if n.Excl && n.Names == 0 {
				note("an indirect expansion")
			}
			if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P") {
				note("a prompt expansion")
			}
			if n.Index != nil && namesIn(n.Index) {
				note("a subscript with names")
			}
		case *syntax.DeclClause:
			for _, as := range n.Args {
				if as.Naked && as.Name == nil && as.Value != nil {
					v := as.Value.Lit()
					flags := "inf"
					if n.Variant != nil && n.Variant.Value == "export" {
						flags = "if"
					}
					if !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") || strings.ContainsAny(v, flags) {
						note("a declare with -i/-n/-f or a quoted name")
					}
				}
				keeps := n.Variant != nil && (n.Variant.Value == "export" || n.Variant.Value == "readonly")
				if as.Naked && as.Name != nil && as.Value == nil && !keeps && oracleDangerousName(as.Name.Value) {
					note("a local without a value for " + as.Name.Value)
				}
			}
		case *syntax.Assign:
			if n.Name != nil && !(n.Naked && n.Value == nil) && oracleDangerousName(n.Name.Value) {
				note("an assignment to " + n.Name.Value)
			}
			if n.Name != nil && arithmeticOnAssign(n.Name.Value) {
				v := ""
				if n.Value != nil {
					v = n.Value.Lit()
				}
				if !isNumberLit(v) {
					note("an arithmetic assignment to " + n.Name.Value)
				}
			}
		case *syntax.WordIter:
			if n.Name != nil && oracleDangerousName(n.Name.Value) {
				note("a loop over " + n.Name.Value)
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				if w, ok := n.X.(*syntax.Word); !ok || w.Lit() == "" || strings.ContainsAny(w.Lit(), "$`") {
					note("[[ -v ]] on a name known only at run time")
				}
			}
		case *syntax.Redirect:
			if n.N != nil && strings.HasPrefix(n.N.Value, "{") && oracleDangerousName(strings.Trim(n.N.Value, "{}")) {
				note("a {NAME} redirection to " + n.N.Value)
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			name := n.Args[0].Lit()
			var args []string
			for _, a := range n.Args[1:] {
				args = append(args, oracleLit(a))
			}
			switch name {
			case "eval", "source", ".", "trap", "alias", "enable", "compgen", "complete", "let":
				note("the builtin " + name)
			case "set":
				for i, a := range args {
					if a == "--" || a == "-" {
						break
					}
					if (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) && strings.ContainsAny(a[1:], "kaPBhmpbtH") ||
						a == "-o" && i+1 < len(args) && (args[i+1] == "keyword" || args[i+1] == "posix" || args[i+1] == "allexport") {
						note("set " + a)
					}
				}
			case "wait", "printf", "read", "unset", "test", "[", "getopts", "mapfile":
				for _, i := range oracleNameArgs(name, args) {
					if args[i] == oracleDyn || !oracleVarName.MatchString(args[i]) {
						note(name + " with an argument evaluated as a name")
					}
				}
			case "declare", "typeset", "local", "export", "readonly":
				note(name + " as a plain command")
			}
		}
		return true
	})
	return found
}

// oracleDyn stands for a word that is not a plain literal.
const oracleDyn = "\x00dyn"

// oracleLit is a word's text when it is made of literals and quotes only.
func oracleLit(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return oracleDyn
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return oracleDyn
				}
				b.WriteString(l.Value)
			}
		default:
			return oracleDyn
		}
	}
	return b.String()
}

var oracleVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?$`)

// oracleNameArgs are the indexes of args a builtin reads as variable names.
func oracleNameArgs(name string, args []string) []int {
	var out []int
	valued := map[string]string{"read": "dpntNui", "mapfile": "dnOsucC", "wait": "", "unset": ""}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch name {
		case "wait":
			if a == "-p" && i+1 < len(args) {
				out = append(out, i+1)
			} else if a == oracleDyn {
				out = append(out, i) // may be -p
			}
		case "printf":
			if i == 0 && (a == "-v" && len(args) > 1) {
				out = append(out, 1)
			} else if i == 0 && a == oracleDyn {
				out = append(out, 0)
			}
		case "test", "[":
			if (a == "-v" || a == "-R") && i+1 < len(args) {
				out = append(out, i+1)
			}
		case "getopts":
			if i == 1 {
				out = append(out, 1)
			}
		default: // read, mapfile, unset: options, then names
			if a == "--" {
				for j := i + 1; j < len(args); j++ {
					out = append(out, j)
				}
				return out
			}
			if strings.HasPrefix(a, "-") && len(a) == 2 {
				if strings.ContainsRune(valued[name], rune(a[1])) {
					i++
				} else if a == "-a" && i+1 < len(args) {
					out = append(out, i+1)
					i++
				}
				continue
			}
			out = append(out, i)
		}
	}
	return out
}

// oracleDangerousName is the fuzz oracle's own short list of variables that
// change what runs; the analysis must cover at least these.
func oracleDangerousName(name string) bool {
	switch strings.ToUpper(name) {
	case "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "IFS", "PS4", "PROMPT_COMMAND",
		"SHELLOPTS", "BASHOPTS", "GLOBIGNORE", "HOME", "CDPATH":
		return true
	}
	return false
}

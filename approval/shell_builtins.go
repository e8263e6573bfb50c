package approval

import "strings"

// Bash builtins' option grammars (bash's internal getopt: no long options,
// no abbreviations, options only before the operands).
var (
	readOpts    = opts("a= d= e E i= n= N= p= r s t= u=", false, false)
	mapfileOpts = opts("d= n= O= s= t u= C= c=", false, false)
	unsetOpts   = opts("f v n", false, false)
	shoptOpts   = opts("p q s u o", false, false)
	waitOpts    = opts("n f p=", false, false)
	hashOpts    = opts("r p= d t l", false, false)
)

// builtin checks bash builtins that evaluate their arguments: variable
// names (a subscript in a name is arithmetic, and a[$(cmd)] runs cmd),
// options that change how later commands run, and builtins that run code.
// Problems make the call opaque whatever the rules say.
func (w *shellWalker) builtin(base string, args []word, sc *scope) {
	switch base {
	case "read":
		p := readOpts.parse(args)
		w.builtinOptsKnown(base, p)
		if h, ok := p.has("-a"); ok {
			w.varNameArg(h.value, "read -a", true)
		}
		for _, a := range args[max(p.rest, 0):] {
			w.varNameArg(a, "read", true)
		}
	case "mapfile", "readarray":
		p := mapfileOpts.parse(args)
		w.builtinOptsKnown(base, p)
		if _, ok := p.has("-C"); ok {
			w.opaque("%s -C runs a callback: never auto-approved", base)
		}
		for _, a := range args[max(p.rest, 0):] {
			w.varNameArg(a, base, true)
		}
	case "printf":
		if len(args) > 0 && !args[0].dyn && strings.HasPrefix(args[0].text, "-v") {
			name := word{text: strings.TrimPrefix(args[0].text, "-v"), lead: len(args[0].text) - 2}
			if name.text == "" {
				if len(args) < 2 {
					return
				}
				name = args[1]
			}
			w.varNameArg(name, "printf -v", true)
		} else if len(args) > 0 && args[0].dyn && args[0].lead == 0 {
			w.opaque("printf gets a first word known only at run time; it may be -v NAME, which evaluates NAME")
		}
	case "wait":
		p := waitOpts.parse(args)
		w.builtinOptsKnown(base, p)
		if h, ok := p.has("-p"); ok {
			w.varNameArg(h.value, "wait -p", true)
		}
	case "getopts":
		if len(args) > 1 {
			w.varNameArg(args[1], "getopts", true)
		}
	case "unset":
		p := unsetOpts.parse(args)
		w.builtinOptsKnown(base, p)
		if _, ok := p.has("-f"); !ok {
			for _, a := range args[max(p.rest, 0):] {
				// unset PATH makes bash look for commands in the current directory.
				w.varNameArg(a, "unset", true)
			}
		}
	case "test", "[":
		for i, a := range args {
			if !a.dyn && (a.text == "-v" || a.text == "-R") && i+1 < len(args) {
				w.varNameArg(args[i+1], base+" "+a.text, false)
			}
		}
	case "declare", "typeset", "local", "export", "readonly":
		// Reached as words (command declare …, builtin local …).
		w.declWords(base, args)
	case "let":
		w.opaque("let evaluates arithmetic, which runs a[$(cmd)] found in variables")
	case "set":
		if why := setProblem(args); why != "" {
			w.opaque("%s", why)
		}
	case "shopt":
		if why := shoptProblem(args); why != "" {
			w.opaque("%s", why)
		}
	case "hash":
		p := hashOpts.parse(args)
		if _, ok := p.has("-p"); ok || p.uncertain() != "" {
			w.opaque("hash -p changes which program a command name runs")
		}
	case "compgen", "complete":
		w.opaque("%s expands word lists and runs functions or commands from its options: never auto-approved", base)
	case "enable":
		w.opaque("enable loads or disables shell builtins: never auto-approved")
	case "alias":
		w.opaque("alias changes what a command name runs: never auto-approved")
	case "bind", "fc", "history":
		w.opaque("%s can run or write commands from the history: never auto-approved", base)
	}
}

func (w *shellWalker) builtinOptsKnown(base string, p optParse) {
	if why := p.uncertain(); why != "" {
		w.opaque("%s has %s: the variables it sets can't be checked", base, why)
	}
}

// declWords checks declare-like builtins given as plain words.
func (w *shellWalker) declWords(variant string, args []word) {
	for _, a := range args {
		switch {
		case !a.dyn && (strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+")):
			w.declFlags(variant, a.text)
		case a.dyn && !strings.Contains(a.text[:min(a.lead, len(a.text))], "="):
			w.opaque("%s gets a variable name known only at run time: never auto-approved", variant)
		default:
			name, value, hasValue := strings.Cut(a.text, "=")
			w.varNameArg(word{text: name, lead: len(name)}, variant, hasValue || variant != "export" && variant != "readonly")
			if hasValue && strings.Contains(value, "[") && strings.ContainsAny(value, "$`") {
				w.opaque("a value with a subscript and $ can run commands when evaluated")
			}
		}
	}
}

// harmlessSetLetters are set options that change nothing outside the shell
// and nothing about how later words are read: -e -u -x -v -f -C -E -T -n.
const harmlessSetLetters = "euxvfCETn"

var harmlessSetNames = map[string]bool{
	"errexit": true, "nounset": true, "xtrace": true, "verbose": true, "noglob": true,
	"noclobber": true, "errtrace": true, "functrace": true, "pipefail": true, "noexec": true,
}

// harmlessShopt are shopt options that only change how globs match.
var harmlessShopt = map[string]bool{
	"nullglob": true, "failglob": true, "globstar": true, "extglob": true, "nocaseglob": true,
	"nocasematch": true, "inherit_errexit": true, "globasciiranges": true,
}

// setProblem says why a `set` call is not harmless ("" when it is). Other
// options change how later commands run: -k turns NAME=VALUE arguments
// into environment variables, -P changes what cd .. means, -o posix…
func setProblem(args []word) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			if a.lead == 0 || strings.HasPrefix(a.text, "-") || strings.HasPrefix(a.text, "+") {
				return "set gets an option known only at run time"
			}
			return "" // positional parameters
		}
		t := a.text
		if t == "--" || t == "-" {
			return "" // the rest are positional parameters
		}
		if len(t) < 2 || t[0] != '-' && t[0] != '+' {
			return ""
		}
		for j := 1; j < len(t); j++ {
			c := t[j]
			if c == 'o' {
				if i+1 < len(args) {
					i++
					n := args[i]
					if n.dyn || !harmlessSetNames[n.text] {
						return "set -o " + displayWord(n) + " changes how later commands run"
					}
				}
				continue
			}
			if strings.IndexByte(harmlessSetLetters, c) < 0 {
				return "set " + t + " changes how later commands run (only -e -u -x -v -f -C -E -T -n and -o pipefail… are known to be harmless)"
			}
		}
	}
	return ""
}

// shoptProblem says why a `shopt` call is not harmless ("" when it is).
func shoptProblem(args []word) string {
	p := shoptOpts.parse(args)
	if why := p.uncertain(); why != "" {
		return "shopt has " + why
	}
	_, setting := p.has("-s", "-u")
	if !setting {
		return "" // prints or queries
	}
	_, setOpts := p.has("-o")
	for _, n := range args[max(p.rest, 0):] {
		if n.dyn || !setOpts && !harmlessShopt[n.text] || setOpts && !harmlessSetNames[n.text] {
			return "shopt " + displayWord(n) + " changes how later commands run"
		}
	}
	return ""
}

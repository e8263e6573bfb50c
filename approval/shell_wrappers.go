package approval

import "strings"

// wrapperSpec describes a program that runs another program: which flags
// take a value, how many operands come before the wrapped command.
type wrapperSpec struct {
	shortValued string
	longValued  []string
	operands    int  // timeout DURATION cmd: 1
	privileged  bool // sudo/doas: allow rules must name the wrapper
	appendsArgs bool // xargs: the command gets more arguments from stdin
}

var wrappers = map[string]wrapperSpec{
	"sudo":     {shortValued: "CDghpRrTtUu", longValued: []string{"user", "group", "chdir", "close-from", "host", "prompt", "role", "type", "command-timeout", "other-user", "chroot"}, privileged: true},
	"doas":     {shortValued: "uC", privileged: true},
	"pkexec":   {longValued: []string{"user"}, privileged: true},
	"run0":     {shortValued: "uDg", longValued: []string{"user", "group", "chdir", "setenv", "property", "description", "slice", "nice", "machine", "unit"}, privileged: true},
	"env":      {shortValued: "uCSP", longValued: []string{"unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal"}},
	"timeout":  {shortValued: "sk", longValued: []string{"signal", "kill-after"}, operands: 1},
	"nice":     {shortValued: "n", longValued: []string{"adjustment"}},
	"nohup":    {},
	"time":     {shortValued: "fo", longValued: []string{"format", "output"}},
	"command":  {},
	"builtin":  {},
	"exec":     {shortValued: "a"},
	"stdbuf":   {shortValued: "ioe", longValued: []string{"input", "output", "error"}},
	"setsid":   {},
	"ionice":   {shortValued: "cnpt", longValued: []string{"class", "classdata", "pid", "pgid", "uid"}},
	"unbuffer": {},
	"xargs":    {shortValued: "adEILlnPs", longValued: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}, appendsArgs: true},
	"watch":    {shortValued: "nq", longValued: []string{"interval", "equexit", "differences"}},
}

// shells run their argument or stdin as code.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true,
	"fish": true, "csh": true, "tcsh": true, "yash": true, "posh": true, "su": true,
}

// flagVal is one option a wrapper received.
type flagVal struct {
	name  string // "-u" or "--user"
	value word
}

// splitWrapper separates a wrapper's options from the command it runs.
func splitWrapper(name string, spec wrapperSpec, args []word) (flags []flagVal, operands []word, cmd []word) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a.dyn {
			break
		}
		t := a.text
		if t == "--" {
			i++
			break
		}
		if name == "nice" && len(t) > 1 && t[0] == '-' && isDigits(t[1:]) {
			flags = append(flags, flagVal{name: "-n", value: word{text: t[1:]}})
			i++
			continue
		}
		if name == "env" && !strings.HasPrefix(t, "-") && strings.Contains(t, "=") {
			flags = append(flags, flagVal{name: "assign", value: a})
			i++
			continue
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		if strings.HasPrefix(t, "--") {
			key, val, hasVal := strings.Cut(t[2:], "=")
			fv := flagVal{name: "--" + key}
			if hasVal {
				fv.value = word{text: val}
			} else if contains(spec.longValued, key) && key != "differences" && i+1 < len(args) {
				i++
				fv.value = args[i]
			}
			flags = append(flags, fv)
			i++
			continue
		}
		// A cluster of short options; a value-taking one eats the rest or the next word.
		for j := 1; j < len(t); j++ {
			c := t[j]
			fv := flagVal{name: "-" + string(c)}
			if strings.IndexByte(spec.shortValued, c) >= 0 {
				if j+1 < len(t) {
					fv.value = word{text: t[j+1:]}
				} else if i+1 < len(args) {
					i++
					fv.value = args[i]
				}
				flags = append(flags, fv)
				break
			}
			flags = append(flags, fv)
		}
		i++
	}
	for n := 0; n < spec.operands && i < len(args); n++ {
		operands = append(operands, args[i])
		i++
	}
	return flags, operands, args[i:]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasFlag(flags []flagVal, names ...string) (flagVal, bool) {
	for _, f := range flags {
		for _, n := range names {
			if f.name == n {
				return f, true
			}
		}
	}
	return flagVal{}, false
}

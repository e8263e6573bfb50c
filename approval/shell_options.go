package approval

import (
	"strings"
)

// Options of programs outside the writer table that write a file, or run
// another program, named in the option's value: an allow rule for the
// program (bash(git diff *), bash(go test *)) must not approve them unseen.
type programOptions struct {
	// writes are options whose value is a file the program writes.
	writes []string
	// runs are options whose value is a command the program runs.
	runs []string
	// opaque are options that make what runs unknowable (git -c sets
	// configuration that can name programs).
	opaque []string
}

var optionEffectsTable = map[string]programOptions{
	// git's global options, before the subcommand (see gitOptions).
	"git": {opaque: []string{"-c", "--config-env", "--exec-path"}},
	"go": {
		writes: []string{"-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace", "-outputdir"},
		runs:   []string{"-exec", "-toolexec"},
	},
	// Output options of programs outside the writer table (issue 41).
	"tree": {writes: []string{"-o"}},
	"shuf": {writes: []string{"-o", "--output"}},
	// Options that make a search program run another.
	"rg": {runs: []string{"--pre", "--hostname-bin"}},
	// uv run / uv tool run run any program.
	"uv": {opaque: []string{"run"}},
}

// gitSubcommands are the options of git subcommands that write files or
// run programs (git's options depend on the subcommand: grep -o is
// --only-matching, format-patch -o a directory).
var gitSubcommands = map[string]programOptions{
	"diff": {writes: []string{"--output"}}, "log": {writes: []string{"--output"}},
	"show": {writes: []string{"--output"}}, "range-diff": {writes: []string{"--output"}},
	"whatchanged": {writes: []string{"--output"}}, "diff-tree": {writes: []string{"--output"}},
	"format-patch": {writes: []string{"-o", "--output-directory", "--output"}},
	"grep":         {runs: []string{"-O", "--open-files-in-pager"}},
	"rebase":       {runs: []string{"-x", "--exec"}},
	"difftool":     {runs: []string{"-x", "--extcmd"}, opaque: []string{"-t", "--tool"}},
	"mergetool":    {opaque: []string{"-t", "--tool"}},
	"fetch":        {runs: []string{"--upload-pack"}}, "pull": {runs: []string{"--upload-pack"}},
	"clone": {runs: []string{"-u", "--upload-pack"}}, "ls-remote": {runs: []string{"--upload-pack"}},
	"push": {runs: []string{"--receive-pack", "--exec"}}, "archive": {runs: []string{"--exec"}},
	"bisect": {opaque: []string{"run"}}, "submodule": {opaque: []string{"foreach"}},
	"filter-branch": {opaque: []string{"--tree-filter", "--index-filter", "--msg-filter", "--env-filter",
		"--commit-filter", "--parent-filter", "--tag-name-filter"}},
}

// optionEffects records what such options write and run. A value given as
// the next word is taken only for options that always take one.
func (w *shellWalker) optionEffects(base string, args []word, sc *scope) {
	w.globOptions(base, args)
	if base == "xxd" {
		w.xxd(args, sc)
		return
	}
	spec, ok := optionEffectsTable[base]
	if !ok {
		return
	}
	if base == "git" {
		global, sub, rest := gitSplit(args)
		w.applyOptions(base, spec, global, sc)
		if sub != "" {
			w.applyOptions("git "+sub, gitSubcommands[sub], rest, w.gitDir(global, sc))
		}
		return
	}
	w.applyOptions(base, spec, args, sc)
}

// gitSplit separates git's global options, its subcommand and the rest.
func gitSplit(args []word) (global []word, sub string, rest []word) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			return args[:i], "", nil
		}
		if !strings.HasPrefix(a.text, "-") {
			return args[:i], a.text, args[i+1:]
		}
		switch a.text { // global options with a separate value
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix":
			i++
		}
	}
	return args, "", nil
}

// gitDir is the scope git's subcommand runs in: -C DIR changes directory
// (relative paths in its options are relative to DIR).
func (w *shellWalker) gitDir(global []word, sc *scope) *scope {
	cwd := sc.cwd
	for i := 0; i+1 < len(global); i++ {
		if global[i].text != "-C" {
			continue
		}
		if d := global[i+1]; d.dyn {
			cwd = ""
		} else if p, ok := w.joinPath(cwd, d.text); ok {
			cwd = p
		} else {
			cwd = ""
		}
	}
	inner := *sc
	inner.cwd = cwd
	return &inner
}

func (w *shellWalker) applyOptions(base string, spec programOptions, args []word, sc *scope) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.dyn || a.text == "--" {
			continue
		}
		if !strings.HasPrefix(a.text, "-") {
			if contains(spec.opaque, a.text) { // bisect run, submodule foreach
				w.opaque("%s %s runs other programs: never auto-approved", base, a.text)
			}
			continue
		}
		name, value, hasValue := strings.Cut(a.text, "=")
		if base == "go" {
			name = "-" + strings.TrimLeft(name, "-") // go accepts -flag and --flag
		} else if short, rest, ok := clusterValue(a.text, spec); ok {
			// -ofile, -ao file, -Ovim: a short option inside a cluster.
			name, value, hasValue = short, rest, rest != ""
		} else if long := abbreviatedLong(name, spec); long != "" {
			name = long // GNU getopt takes a unique prefix: --out=FILE
		}
		val := word{text: value, lead: len(value)}
		if !hasValue {
			if i+1 < len(args) {
				val = args[i+1]
			} else {
				val = dynWord
			}
		}
		switch {
		case contains(spec.opaque, name) || contains(spec.opaque, shortCluster(base, name, spec.opaque)):
			w.opaque("%s %s sets configuration that can run other programs: never auto-approved", base, name)
		case contains(spec.writes, name):
			w.write(val, sc, base+" "+name)
			i += skip(hasValue)
		case contains(spec.runs, name):
			w.opaque("%s %s runs the program %q: never auto-approved", base, name, displayWord(val))
			w.nestedString(val.text, sc)
			i += skip(hasValue)
		}
	}
}

// clusterValue finds, in a word of short options (-ao, -ofile), the first
// short option of spec's writes or runs: its value is the rest of the word,
// or the next word when it ends the cluster ("" rest).
func clusterValue(name string, spec programOptions) (short, rest string, ok bool) {
	if len(name) < 3 || name[0] != '-' || name[1] == '-' {
		return "", "", false
	}
	for i := 1; i < len(name); i++ {
		o := "-" + name[i:i+1]
		if contains(spec.writes, o) || contains(spec.runs, o) {
			return o, name[i+1:], true
		}
	}
	return "", "", false
}

// abbreviatedLong maps --out to --output when it is a prefix of exactly one
// long option of spec that writes or runs.
func abbreviatedLong(name string, spec programOptions) string {
	if !strings.HasPrefix(name, "--") || len(name) < 4 {
		return ""
	}
	found := ""
	for _, l := range append(append([]string{}, spec.writes...), spec.runs...) {
		if strings.HasPrefix(l, name) && l != name {
			if found != "" {
				return found // ambiguous for getopt, but either writes or runs
			}
			found = l
		}
	}
	return found
}

// shortCluster maps -cfoo (a short option with its value attached, as git
// -cKEY=VALUE allows) to -c.
func shortCluster(base, name string, opts []string) string {
	if strings.HasPrefix(base, "git") && len(name) > 2 && name[0] == '-' && name[1] != '-' && contains(opts, name[:2]) {
		return name[:2]
	}
	return name
}

func skip(hasValue bool) int {
	if hasValue {
		return 0
	}
	return 1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// xxd [options] [INFILE [OUTFILE]] writes its second operand. Options with
// a value: -c -g -l -n -o -s -R (also -cols, -len…: xxd matches by the
// first letter); "-" alone is stdin or stdout.
func (w *shellWalker) xxd(args []word, sc *scope) {
	var ops []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.dyn && a.lead == 0:
			w.unknownWrite(sc, "xxd", "an argument known only at run time may be its output file")
			return
		case a.text == "-" || !strings.HasPrefix(a.text, "-"):
			ops = append(ops, a)
		case len(a.text) >= 2 && strings.IndexByte("cglnosR", a.text[1]) >= 0:
			// -c8 carries its value; -c, -cols take the next word.
			if len(a.text) == 2 || isLetters(a.text[2:]) {
				i++
			}
		}
	}
	if len(ops) >= 2 && ops[1].text != "-" {
		w.write(ops[1], sc, "xxd OUTFILE")
	}
}

// globOptionPrograms read options from anywhere on their command line and
// have options that run a program or write elsewhere (tar
// --checkpoint-action=exec=, rsync -e, cp -t DIR, chmod --reference, rg
// --pre, zip -TT): an unquoted glob among their arguments can expand to a
// file named like such an option.
var globOptionPrograms = map[string]bool{
	"tar": true, "bsdtar": true, "rsync": true, "cp": true, "mv": true, "ln": true, "install": true, "rm": true,
	"chmod": true, "chown": true, "chgrp": true, "touch": true, "zip": true, "7z": true, "scp": true, "sed": true,
	"sort": true, "git": true, "rg": true, "grep": true, "find": true, "xargs": true, "curl": true, "wget": true,
	"dd": true, "tee": true, "shuf": true, "tree": true, "uniq": true, "xxd": true,
}

// globOptions asks when such a program gets an unquoted glob, before any
// --, that can expand to a name starting with "-" (./* and dir/* cannot).
func (w *shellWalker) globOptions(base string, args []word) {
	if !globOptionPrograms[base] {
		return
	}
	for _, a := range args {
		if !a.dyn && a.text == "--" {
			return
		}
		if a.glob && globMayStartWithDash(a.pat) {
			w.opaque("%s gets the glob %s, which can expand to a file name starting with - that %s reads as an option (--checkpoint-action=exec=…); write ./%s or put -- before it", base, a.text, base, a.text)
			return
		}
	}
}

// globMayStartWithDash: the pattern's first element can match "-".
func globMayStartWithDash(pat string) bool {
	for _, alt := range expandPattern(pat, 64) {
		if alt == "" {
			continue
		}
		e := parseGlob(alt, false)
		if len(e) > 0 && e[0].accepts('-') {
			return true
		}
	}
	return false
}

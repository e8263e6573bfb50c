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
}

// gitSubcommands are the options of git subcommands that write files or
// run programs (git's options depend on the subcommand: grep -o is
// --only-matching, format-patch -o a directory).
var gitSubcommands = map[string]programOptions{
	"diff": {writes: []string{"--output"}}, "log": {writes: []string{"--output"}},
	"show": {writes: []string{"--output"}}, "range-diff": {writes: []string{"--output"}},
	"whatchanged": {writes: []string{"--output"}}, "diff-tree": {writes: []string{"--output"}},
	"format-patch": {writes: []string{"-o", "--output-directory", "--output"}},
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

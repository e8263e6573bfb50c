package approval

import (
	"os"
	"path"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxAlternatives bounds how many readings of ambiguous wrappers deny
	// rules are checked against in one call.
	maxAlternatives = 64
	// maxWrapDepth bounds wrappers inside wrappers (nohup nohup … cmd).
	maxWrapDepth = 64
)

func (w *shellWalker) call(c *syntax.CallExpr, sc *scope) {
	for _, as := range c.Assigns {
		w.assign(as, sc)
		if len(c.Args) > 0 && as.Name != nil {
			w.environment(as.Name.Value, "before a command")
		}
	}
	if len(c.Args) == 0 {
		w.rememberAssigns(c.Assigns)
	}
	words := make([]word, 0, len(c.Args))
	for _, a := range c.Args {
		w.scanWord(a, sc)
		words = append(words, w.expandBraces(a)...)
	}
	if len(words) == 0 {
		return
	}
	w.simple(words, sc, nil, nil)
}

// maxBraceWords bounds what one word's brace expansion may produce.
const maxBraceWords = 256

// expandBraces resolves a word after brace expansion, as bash expands braces
// before anything else: "cat .{e,x}nv" reads .env, "{rm,-rf,x}" runs rm.
func (w *shellWalker) expandBraces(a *syntax.Word) []word {
	if !syntax.SplitBraces(a) {
		return []word{w.resolveIn(a)}
	}
	var out []word
	for ew, err := range expand.BracesSeq(nil, a) {
		if err != nil || len(out) >= maxBraceWords {
			w.opaque("a brace expansion makes too many words to check")
			out = append(out, dynWord)
			break
		}
		out = append(out, w.resolveIn(ew))
	}
	return out
}

// simple analyses one simple command, unwrapping wrappers. forms are the
// outer layers already seen (for deny rules); privileged is the outermost
// sudo-like form, which allow rules must match instead of the inner command.
func (w *shellWalker) simple(words []word, sc *scope, forms [][]word, privileged []word) {
	if len(w.a.commands) > maxCommands {
		w.opaque("too many commands to analyse")
		return
	}
	if w.wrapDepth > maxWrapDepth {
		w.opaque("too many wrappers inside each other to analyse")
		return
	}
	w.wrapDepth++
	defer func() { w.wrapDepth-- }()
	forms = append(forms[:len(forms):len(forms)], words)
	record := func(extra func(*shellCommand)) {
		cmd := shellCommand{words: words, denyForms: forms, nested: sc.nested, cwd: sc.cwd, reads: sc.reads, unknownRead: sc.unknownRead}
		if privileged != nil {
			cmd.words = privileged
		}
		if extra != nil {
			extra(&cmd)
		}
		w.a.commands = append(w.a.commands, cmd)
	}
	name := words[0]
	if name.dyn {
		w.opaque("the command name is built at run time (%q); such commands are never auto-approved", displayWord(name))
		record(nil)
		// It may name a wrapper (env, sudo…): deny rules check what could follow.
		w.alternatives(words[1:], sc, forms, privileged)
		return
	}
	if name.glob {
		w.opaque("the command name %q is a glob pattern", name.text)
		record(nil)
		w.alternatives(words[1:], sc, forms, privileged)
		return
	}
	base := path.Base(name.text)
	args := words[1:]
	if spec, ok := wrappers[base]; ok {
		w.wrapper(wrapCall{spec: spec, base: base, words: words, sc: sc, forms: forms, privileged: privileged, record: record})
		return
	}
	switch base {
	case "cd", "pushd":
		record(func(c *shellCommand) { w.cd(c, args, sc) })
		return
	case "popd":
		sc.cwd = ""
	}
	w.builtin(base, args, sc)
	record(nil)
	w.effects(base, args, sc)
	w.optionEffects(base, args, sc)
}

// alternatives analyses, for deny rules only, every way args could be read
// as a command: each suffix that starts with a word that is not an option.
func (w *shellWalker) alternatives(args []word, sc *scope, forms [][]word, privileged []word) {
	nested := *sc
	nested.nested = true
	for j, a := range args {
		if !a.dyn && (strings.HasPrefix(a.text, "-") || a.text == "") {
			continue
		}
		if w.alts >= maxAlternatives {
			w.opaque("too many ways to read the command to check them all")
			return
		}
		w.alts++
		w.simple(args[j:], &nested, forms, privileged)
	}
}

// wrapper analyses a call of a program in the wrappers table as its entry
// says: the command it runs is analysed as a command of its own.
func (w *shellWalker) wrapper(c wrapCall) {
	spec, base, words, sc, forms, privileged, record := c.spec, c.base, c.words, c.sc, c.forms, c.privileged, c.record
	args := words[1:]
	switch {
	case spec.run != nil:
		spec.run(w, c)
		return
	case spec.code != noCode:
		w.code(c)
		return
	case spec.applet:
		if len(args) > 0 && !args[0].dyn && !strings.HasPrefix(args[0].text, "-") {
			w.simple(args, sc, forms, privileged)
			return
		}
		record(nil)
		return
	case spec.opts == nil:
		w.opaque("%s %s: never auto-approved", base, spec.why)
		record(nil)
		w.alternatives(args, sc, forms, privileged)
		return
	}
	if spec.legacyNice && len(args) > 0 && isLegacyNice(args[0]) {
		args = args[1:] // nice -10 cmd
	}
	p := spec.opts.parse(args)
	if p.rest < 0 {
		w.opaque("%s has %s: chatls can't tell which command it runs", base, p.uncertain())
		record(nil)
		w.alternatives(args, sc, forms, privileged)
		return
	}
	inner := args[p.rest:]
	if _, ok := spec.hit(p, runsNothing); ok {
		record(nil)
		return
	}
	if len(inner) < spec.operands {
		record(nil)
		return
	}
	operands := inner[:spec.operands]
	inner = inner[spec.operands:]
	for _, op := range operands {
		if op.dyn && mayBeOption(op) {
			w.opaque("%s has an operand known only at run time (%q): chatls can't tell which command it runs", base, displayWord(op))
			record(nil)
			w.alternatives(args, sc, forms, privileged)
			return
		}
	}
	// sub is the scope the wrapped command runs in: a child process, so a
	// cd inside does not change the shell's directory, except for the
	// builtins command and builtin, which run cd in this shell.
	sub := sc
	if !spec.inShell {
		cp := *sc
		sub = &cp
	}
	if _, ok := spec.hit(p, runsShell); ok {
		w.opaque("%s -s/-i runs a shell: never auto-approved", base)
		w.nestedString(joinWords(inner), sc)
		record(nil)
		return
	}
	if _, ok := spec.hit(p, editsFiles); ok {
		for _, a := range inner {
			w.write(a, sc, base+"edit") // sudo -e is sudoedit
		}
		record(nil)
		return
	}
	// Every option counts, in the order written: the last time -o or
	// xargs -a is the one the program takes, and an earlier one must not
	// stand in for it.
	for _, h := range p.opts {
		switch spec.effects[h.name] {
		case splitsString:
			w.opaque("%s %s splits a string into a command: never auto-approved", base, canonicalFlag(h.def))
			w.nestedString(h.value.text+" "+joinWords(inner), sc)
		case changesPath:
			w.opaque("%s %s changes where programs are found", base, canonicalFlag(h.def))
		case newDir:
			sub.cwd = ""
		case writesValue:
			w.write(h.value, sc, base+" "+canonicalFlag(h.def))
		case argFile:
			// The arguments come from a file: the inner command reads it too.
			if t := h.value; t.dyn {
				w.opaque("%s reads its arguments from a file named at run time", base)
			} else if p, ok := w.joinPath(sc.cwd, t.text); ok {
				sub.reads = append(sub.reads[:len(sub.reads):len(sub.reads)], p)
			} else {
				w.opaque("%s reads its arguments from a file relative to a directory known only at run time", base)
			}
		case setsVar:
			if why := dangerousVariable(h.value.text); why != "" || h.value.dyn {
				w.opaque("%s %s sets %s in the commands it runs", base, h.name, displayWord(h.value))
			}
		}
	}
	if spec.assigns {
		var ok bool
		if inner, ok = w.assignments(base, inner); !ok {
			record(nil)
			w.alternatives(inner, sc, forms, privileged)
			return
		}
	}
	if _, ok := spec.hit(p, execs); spec.viaShell && !ok {
		// The words are handed to sh -c: analyse that string.
		w.parseInline(joinWords(inner), sub)
		return
	}
	if spec.lockFile {
		if lock := operands[0]; !isDigits(lock.text) || lock.dyn {
			w.write(lock, sc, base)
		}
	}
	if len(inner) > 0 && !inner[0].dyn && contains(spec.codeAfter, inner[0].text) {
		w.opaque("%s %s runs a string as shell code: never auto-approved", base, spec.codeAfter[0])
		if len(inner) > 1 {
			w.nestedString(inner[1].text, sc)
		}
		record(nil)
		return
	}
	if spec.stdinArgs {
		if len(inner) == 0 && spec.defaultCommand != "" {
			inner = []word{{text: spec.defaultCommand, lead: len(spec.defaultCommand)}}
		}
		if _, ok := spec.hit(p, replaces); ok && len(inner) > 0 {
			// Replacement strings are filled in from stdin.
			inner = append([]word{inner[0]}, dynamicArgs(inner[1:])...)
		}
		inner = append(append([]word{}, inner...), dynWord)
	}
	if len(inner) == 0 {
		if spec.bareShell {
			w.opaque("%s without a command starts a shell: never auto-approved", base)
		}
		record(nil)
		return
	}
	if len(p.abbreviated) > 0 {
		w.opaque("%s has the abbreviated option %s: write options in full to have the call checked", base, p.abbreviated[0])
		record(nil)
		nested := *sub
		nested.nested = true
		w.simple(inner, &nested, forms, privileged)
		return
	}
	switch spec.kind {
	case wrapNamed:
		if privileged == nil {
			privileged = words
		}
		w.simple(inner, sub, forms, privileged)
	case wrapOpaque:
		w.opaque("%s runs the command in another root, user or namespace, or under a tracer: never auto-approved", base)
		record(nil)
		nested := *sub
		nested.nested = true
		w.simple(inner, &nested, forms, privileged)
	default:
		w.simple(inner, sub, forms, privileged)
	}
}

// assignments reads env's "-" (= -i) and NAME=VALUE before the command and
// returns the command. ok is false when a word known only at run time
// stands where either may ("$X" may be NAME=VALUE or the command).
func (w *shellWalker) assignments(base string, inner []word) (rest []word, ok bool) {
	for len(inner) > 0 {
		a := inner[0]
		if !a.dyn && a.text == "-" {
			inner = inner[1:]
			continue
		}
		name, isAssign := assignedName(a)
		if !isAssign {
			break
		}
		if name == "" {
			w.opaque("%s sets a variable whose name is known only at run time", base)
		} else if why := dangerousVariable(name); why != "" {
			w.opaque("setting %s %s", name, why)
		} else {
			w.environment(name, "with "+base)
		}
		inner = inner[1:]
	}
	if len(inner) > 0 && inner[0].dyn && inner[0].lead == 0 {
		w.opaque("%s gets a word known only at run time where a variable or the command stands", base)
		return inner, false
	}
	return inner, true
}

// code analyses a program that runs its arguments as shell code.
func (w *shellWalker) code(c wrapCall) {
	args := c.words[1:]
	if c.spec.why != "" {
		w.opaque("%s %s: never auto-approved", c.base, c.spec.why)
	}
	switch c.spec.code {
	case codeWords:
		w.nestedString(joinWords(args), c.sc)
	case codeFirst:
		if len(args) > 0 {
			w.nestedString(args[0].text, c.sc)
		}
	case codeShell:
		w.shell(c.base, args, c.sc)
	}
	c.record(nil)
}

func isLegacyNice(a word) bool {
	return !a.dyn && len(a.text) > 1 && a.text[0] == '-' && isDigits(strings.TrimPrefix(a.text[1:], "+"))
}

// assignedName reads NAME=VALUE (env's operands): ok when the word is an
// assignment; name "" when it may be one but its name is not known.
func assignedName(a word) (name string, ok bool) {
	known := a.text[:min(a.lead, len(a.text))]
	if i := strings.IndexByte(known, '='); i >= 0 {
		if strings.HasPrefix(known, "-") {
			return "", false
		}
		return known[:i], true
	}
	return "", false
}

// dynamicArgs marks arguments as dynamic (xargs -I replaces inside them).
func dynamicArgs(args []word) []word {
	out := make([]word, len(args))
	for i, a := range args {
		out[i] = a
		out[i].dyn = true
		out[i].lead = 0
	}
	return out
}

// shell handles sh/bash/zsh…: the code they run is not visible as commands.
// Options are read the way bash reads them: -o/-O/+o/+O and --rcfile take
// a value, -c may stand anywhere among the options, and the first operand
// is then the code.
func (w *shellWalker) shell(base string, args []word, sc *scope) {
	hasC := false
	var code []string
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		if a.dyn {
			if mayBeOption(a) {
				w.opaque("%s gets an option known only at run time: never auto-approved", base)
				w.nestedString(joinWords(args[i:]), sc)
				return
			}
			break
		}
		t := a.text
		if t == "--" || t == "-" {
			i++
			break
		}
		if len(t) < 2 || t[0] != '-' && t[0] != '+' {
			break
		}
		if strings.HasPrefix(t, "--") {
			name, val, hasVal := strings.Cut(t[2:], "=")
			switch name {
			case "rcfile", "init-file":
				if !hasVal {
					i++
				}
			case "command", "init-command": // fish
				hasC = true
				if hasVal {
					code = append(code, val)
				} else if i+1 < len(args) {
					i++
					code = append(code, args[i].text)
				}
			}
			continue
		}
		for j := 1; j < len(t); j++ {
			switch t[j] {
			case 'c':
				hasC = true
			case 'C':
				if base == "fish" {
					hasC = true
				}
			case 'o', 'O':
				if j == len(t)-1 {
					i++
				}
				continue options
			}
		}
	}
	if hasC {
		w.opaque("%s -c runs a string as shell code: never auto-approved", base)
		if i < len(args) {
			code = append(code, args[i].text)
		}
		for _, c := range code {
			w.nestedString(c, sc)
		}
		return
	}
	if i < len(args) {
		w.opaque("%s runs the script %q: its contents are not checked", base, args[i].text)
		return
	}
	w.opaque("%s reads shell code from its input: never auto-approved", base)
	for _, code := range sc.stdinCode {
		w.nestedString(code, sc)
	}
}

// nestedString parses code that runs inside something else (eval, sh -c):
// deny rules see its commands; nothing in it is approved.
func (w *shellWalker) nestedString(code string, sc *scope) {
	if strings.TrimSpace(code) == "" {
		return
	}
	w.parse(code, sc.cwd, true, sc.depth+1)
}

// parseInline parses code that runs as if written here (watch's argument).
func (w *shellWalker) parseInline(code string, sc *scope) {
	w.parse(code, sc.cwd, sc.nested, sc.depth+1)
}

// cd follows bash: -L (the default) makes the path logical — "l/.." is the
// directory holding the link l — and falls back to the physical path when
// the logical one does not exist; -P resolves links first, like the kernel.
// When the two readings differ the directory is unknown.
func (w *shellWalker) cd(c *shellCommand, args []word, sc *scope) {
	c.isCd = true
	physical := false
	var dir *word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.dyn && a.text == "--" {
			if i+1 < len(args) {
				dir = &args[i+1]
			}
			break
		}
		if !a.dyn && len(a.text) > 1 && a.text[0] == '-' {
			for _, ch := range a.text[1:] {
				switch ch {
				case 'P':
					physical = true
				case 'L':
					physical = false
				case 'e', '@':
				default:
					// cd fails on an unknown option: the directory stays, but
					// say unknown rather than guess.
					c.cdText = a.text
					sc.cwd = ""
					return
				}
			}
			continue
		}
		if a.dyn && a.lead == 0 {
			c.cdText = displayWord(a)
			sc.cwd = ""
			return
		}
		dir = &args[i]
		break
	}
	switch {
	case dir == nil:
		c.cd, c.cdText = w.home, "~"
	case dir.dyn || dir.glob || dir.text == "-":
		c.cdText = displayWord(*dir)
	default:
		c.cdText = dir.text
		p, ok := w.joinPath(sc.cwd, dir.text)
		if !ok {
			break
		}
		if physical || !strings.Contains(dir.text, "..") {
			c.cd = p
			break
		}
		logical := path.Clean(p)
		if canonicalPath(logical, "/", w.home) == canonicalPath(p, "/", w.home) {
			c.cd = logical
		}
	}
	sc.cwd = c.cd
	if c.cd != "" {
		if fi, err := os.Stat(c.cd); err != nil || !fi.IsDir() {
			// cd may fail; the next statement after ; would then run in the old directory.
			sc.cdUnsure = true
		}
	}
}

// find: the expression's -exec commands are commands of their own, and
// -delete / -fprint write files.
func (w *shellWalker) find(c wrapCall) {
	words, sc, forms, privileged := c.words, c.sc, c.forms, c.privileged
	own := []word{words[0]}
	var starts []word
	inExpr := false
	for i := 1; i < len(words); i++ {
		a := words[i]
		t := a.text
		if a.dyn && a.lead == 0 {
			inExpr = true // may be an expression word such as -delete
			w.opaque("find gets a word known only at run time (%q): its expression can't be checked", displayWord(a))
		}
		if !a.dyn && (strings.HasPrefix(t, "-") || t == "(" || t == "!" || t == ")") {
			inExpr = true
		}
		if !inExpr {
			starts = append(starts, a)
		}
		switch t {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(words) && words[j].text != ";" && words[j].text != "+" {
				j++
			}
			inner := make([]word, 0, j-i)
			for _, x := range words[i+1 : min(j, len(words))] {
				if strings.Contains(x.text, "{}") {
					x.dyn = true
				}
				inner = append(inner, x)
			}
			if len(inner) > 0 {
				w.simple(inner, sc, forms, privileged)
			}
			i = j
			continue
		case "-delete":
			if len(starts) == 0 {
				starts = []word{{text: ".", lead: 1}}
			}
			for _, s := range starts {
				w.write(s, sc, "find -delete")
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(words) {
				w.write(words[i+1], sc, "find "+t)
			}
		}
		own = append(own, a)
	}
	cmd := shellCommand{words: own, denyForms: append(forms[:len(forms):len(forms)], own), nested: sc.nested, cwd: sc.cwd, reads: sc.reads, unknownRead: sc.unknownRead}
	if privileged != nil {
		cmd.words = privileged
	}
	w.a.commands = append(w.a.commands, cmd)
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, x := range ws {
		parts[i] = x.text
	}
	return strings.Join(parts, " ")
}

func displayWord(x word) string {
	if x.text == "" && x.dyn {
		return "$…"
	}
	return x.text
}

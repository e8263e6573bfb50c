package approval

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func (w *shellWalker) call(c *syntax.CallExpr, sc *scope) {
	for _, as := range c.Assigns {
		w.assign(as, sc)
	}
	words := make([]word, 0, len(c.Args))
	for _, a := range c.Args {
		w.scanWord(a, sc)
		words = append(words, resolveWord(a))
	}
	if len(words) == 0 {
		return
	}
	w.simple(words, sc, nil, nil)
}

// simple analyses one simple command, unwrapping wrappers. forms are the
// outer layers already seen (for deny rules); privileged is the outermost
// sudo-like form, which allow rules must match instead of the inner command.
func (w *shellWalker) simple(words []word, sc *scope, forms [][]word, privileged []word) {
	forms = append(forms, words)
	record := func(extra func(*shellCommand)) {
		cmd := shellCommand{words: words, denyForms: forms, nested: sc.nested}
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
		return
	}
	if name.glob {
		w.opaque("the command name %q is a glob pattern", name.text)
		record(nil)
		return
	}
	base := path.Base(name.text)
	args := words[1:]
	if spec, ok := wrappers[base]; ok {
		if inner, handled := w.unwrap(base, spec, args, sc); handled {
			if len(inner) == 0 {
				record(nil)
				return
			}
			if spec.privileged && privileged == nil {
				privileged = words
			}
			w.simple(inner, sc, forms, privileged)
			return
		}
	}
	switch base {
	case "busybox", "toybox":
		if len(args) > 0 && !args[0].dyn && !strings.HasPrefix(args[0].text, "-") {
			w.simple(args, sc, forms, privileged)
			return
		}
	case "eval":
		w.opaque("eval runs a string as code: never auto-approved")
		w.nestedString(joinWords(args), sc)
	case "source", ".":
		w.opaque("%s runs a script's contents: never auto-approved", base)
	case "trap":
		w.opaque("trap registers code to run later: never auto-approved")
		if len(args) > 0 {
			w.nestedString(args[0].text, sc)
		}
	case "cd", "pushd":
		record(func(c *shellCommand) { w.cd(c, args, sc) })
		return
	case "popd":
		sc.cwd = ""
	case "find":
		w.find(words, sc, forms, privileged)
		return
	}
	if shells[base] {
		w.shell(base, args, sc)
	}
	record(nil)
	w.effects(base, args, sc)
}

// unwrap returns the command a wrapper runs; handled is false when the
// wrapper is used in a way that runs nothing else (env alone, command -v).
func (w *shellWalker) unwrap(base string, spec wrapperSpec, args []word, sc *scope) ([]word, bool) {
	flags, _, cmd := splitWrapper(base, spec, args)
	switch base {
	case "sudo", "doas", "run0":
		if _, ok := hasFlag(flags, "-s", "-i", "--shell", "--login"); ok {
			w.opaque("%s -s/-i runs a shell: never auto-approved", base)
			w.nestedString(joinWords(cmd), sc)
			return nil, true
		}
		if _, ok := hasFlag(flags, "-e", "--edit"); ok {
			for _, a := range cmd {
				w.write(a, sc, "sudoedit")
			}
			return nil, true
		}
		if _, ok := hasFlag(flags, "-D", "--chdir"); ok {
			sc = &scope{cwd: "", nested: sc.nested, depth: sc.depth}
		}
	case "env":
		for _, f := range flags {
			switch f.name {
			case "assign":
				name, _, _ := strings.Cut(f.value.text, "=")
				if why := dangerousVariable(name); why != "" {
					w.opaque("setting %s %s", name, why)
				}
			case "-S", "--split-string":
				w.opaque("env -S splits a string into a command: never auto-approved")
				w.nestedString(f.value.text, sc)
			case "-P":
				w.opaque("env -P changes where programs are found")
			case "-C", "--chdir":
				sc.cwd = ""
			}
		}
	case "command":
		if _, ok := hasFlag(flags, "-v", "-V"); ok {
			return nil, true // only prints where the command is
		}
	case "time":
		if f, ok := hasFlag(flags, "-o", "--output"); ok {
			w.write(f.value, sc, "time -o")
		}
	case "exec":
		if len(cmd) == 0 {
			return nil, true // exec with redirections only
		}
	case "watch":
		if _, ok := hasFlag(flags, "-x", "--exec"); !ok {
			// watch hands its arguments to sh -c: analyse that string.
			w.parseInline(joinWords(cmd), sc)
			return nil, true
		}
	case "xargs":
		if len(cmd) == 0 {
			cmd = []word{{text: "echo"}}
		}
		if _, ok := hasFlag(flags, "-I", "-i", "--replace"); ok {
			// Replacement strings are filled in from stdin.
			cmd = append([]word{cmd[0]}, dynamicArgs(cmd[1:])...)
		}
		return append(append([]word{}, cmd...), dynWord), true
	}
	return cmd, true
}

// dynamicArgs marks arguments as dynamic (xargs -I replaces inside them).
func dynamicArgs(args []word) []word {
	out := make([]word, len(args))
	for i, a := range args {
		out[i] = a
		out[i].dyn = true
	}
	return out
}

// shell handles sh/bash/zsh…: the code they run is not visible as commands.
func (w *shellWalker) shell(base string, args []word, sc *scope) {
	for i, a := range args {
		if a.dyn {
			break
		}
		if strings.HasPrefix(a.text, "-") && strings.Contains(a.text, "c") && !strings.HasPrefix(a.text, "--") {
			w.opaque("%s -c runs a string as shell code: never auto-approved", base)
			if i+1 < len(args) {
				w.nestedString(args[i+1].text, sc)
			}
			return
		}
		if !strings.HasPrefix(a.text, "-") && !strings.HasPrefix(a.text, "+") {
			w.opaque("%s runs the script %q: its contents are not checked", base, a.text)
			return
		}
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

func (w *shellWalker) cd(c *shellCommand, args []word, sc *scope) {
	c.isCd = true
	var dir *word
	for i := range args {
		if !args[i].dyn && (args[i].text == "-P" || args[i].text == "-L" || args[i].text == "-e" || args[i].text == "--") {
			continue
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
		if p, ok := w.joinPath(sc.cwd, dir.text); ok {
			c.cd = p
		}
	}
	sc.cwd = c.cd
}

// find: the expression's -exec commands are commands of their own, and
// -delete / -fprint write files.
func (w *shellWalker) find(words []word, sc *scope, forms [][]word, privileged []word) {
	own := []word{words[0]}
	var starts []word
	inExpr := false
	for i := 1; i < len(words); i++ {
		a := words[i]
		t := a.text
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
				starts = []word{{text: "."}}
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
	cmd := shellCommand{words: own, denyForms: append(forms[:len(forms):len(forms)], own), nested: sc.nested}
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

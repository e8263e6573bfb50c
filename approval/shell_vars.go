package approval

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The walker follows variables assigned literally earlier in the same
// command ("x=.env; cat $x" reads .env) and marks the rest it sets in any
// other way as tainted: their value is made at run time by the command
// itself (read, for, printf -v, a branch that may not run…), so an
// argument built from one names a file chatls cannot know.

// resolveIn is resolveWord with the variables known so far filled in.
func (w *shellWalker) resolveIn(a *syntax.Word) word {
	tainted := false
	parts := make([]syntax.WordPart, len(a.Parts))
	for i, p := range a.Parts {
		switch p := p.(type) {
		case *syntax.ParamExp:
			parts[i] = w.fillParam(p, false, &tainted)
		case *syntax.DblQuoted:
			inner := make([]syntax.WordPart, len(p.Parts))
			for j, dp := range p.Parts {
				if pe, ok := dp.(*syntax.ParamExp); ok {
					inner[j] = w.fillParam(pe, true, &tainted)
				} else {
					inner[j] = dp
				}
			}
			cp := *p
			cp.Parts = inner
			parts[i] = &cp
		default:
			parts[i] = p
		}
	}
	cp := *a
	cp.Parts = parts
	out := resolveWord(&cp)
	out.tainted = tainted
	return out
}

// fillParam replaces $NAME / ${NAME} by a known literal value; a variable
// the command sets some other way (or a positional parameter) taints the
// word instead.
func (w *shellWalker) fillParam(p *syntax.ParamExp, quoted bool, tainted *bool) syntax.WordPart {
	if p.Param == nil {
		return p
	}
	name := p.Param.Value
	if isDigits(name) || name == "@" || name == "*" {
		*tainted = true // set --, function arguments, shift
		return p
	}
	v, known := w.vars[name]
	simple := p.Exp == nil && p.Index == nil && p.Slice == nil && p.Repl == nil && !p.Excl && !p.Length && !p.Width && p.Names == 0
	switch {
	case known && simple && quoted:
		return &syntax.Lit{Value: escapeDouble(v)}
	case known && simple && !strings.ContainsAny(v, " \t\n*?[{'") && v != "":
		return &syntax.SglQuoted{Value: v} // no splitting or globbing can change it
	case w.touched[name]:
		*tainted = true
	}
	return p
}

// escapeDouble writes v so that unescapeDouble gives it back.
func escapeDouble(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if strings.IndexByte("$`\"\\", v[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// rememberAssigns records the literal values of an assignment statement
// (NAME=VALUE with no command): they hold for the statements that follow.
func (w *shellWalker) rememberAssigns(assigns []*syntax.Assign) {
	for _, as := range assigns {
		if as.Name == nil || as.Append || as.Index != nil || as.Array != nil || as.Naked || as.Value == nil {
			continue
		}
		if v := w.resolveIn(as.Value); !v.dyn && !v.tainted && !v.glob {
			w.vars[as.Name.Value] = v.text
		}
	}
}

// noFileArgs are commands whose arguments are never paths they open.
var noFileArgs = map[string]bool{"echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true,
	":": true, "expr": true, "seq": true, "sleep": true, "exit": true, "return": true}

// maxLoopItems bounds how many literal items of a for loop are followed.
const maxLoopItems = 16

// forEachLiteral analyses a for loop's body once per item when every item
// is a literal (for f in a b; do ls $f; done lists a, then b); false when
// the items are not all literal and the variable stays tainted.
func (w *shellWalker) forEachLiteral(name string, items []word, body func()) bool {
	if len(items) == 0 || len(items) > maxLoopItems {
		return false
	}
	for _, it := range items {
		if it.dyn || it.glob || it.tainted {
			return false
		}
	}
	for _, it := range items {
		w.vars[name] = it.text
		body()
	}
	delete(w.vars, name)
	return true
}

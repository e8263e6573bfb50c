package provider

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/luavm"
	lua "github.com/yuin/gopher-lua"
)

// Templates (SPEC §7): `{{ expr }}` is replaced by the expression's value,
// `{% code %}` runs Lua (loops and conditions around text), both in the
// frontmatter's sandboxed VM with its variables. `{{-`/`-}}` and
// `{%-`/`-%}` trim the whitespace on that side, as Flemma's templates do.
// Tool results and the model's own text are never templates: they are data.

const templateChunk = "template"

type templateEnv struct {
	vm  *luavm.VM
	out strings.Builder
}

// hasTemplate reports text that needs the VM.
func hasTemplate(s string) bool {
	return strings.Contains(s, "{{") || strings.Contains(s, "{%")
}

// render evaluates the templates in s (a run of the message's text at span).
func (b *promptBuilder) render(s string, span chatdoc.Span) (string, bool) {
	if !hasTemplate(s) {
		return s, true
	}
	code, ok := compileTemplate(s)
	if !ok {
		return s, true // no complete tag: plain text
	}
	env := b.templates()
	env.out.Reset()
	if err := env.vm.Run(templateChunk, code); err != nil {
		_, msg := luavm.ErrorLine(templateChunk, err)
		b.problem(span, Error, "Template error: %s", msg)
		return "", false
	}
	return env.out.String(), true
}

func (b *promptBuilder) templates() *templateEnv {
	if b.tmpl != nil {
		return b.tmpl
	}
	env := &templateEnv{vm: frontmatter.TemplateVM(b.doc.Frontmatter)}
	L := env.vm.L
	env.vm.Reserve("__emit")
	env.vm.Reserve("__emit_value")
	L.SetGlobal("__emit", L.NewFunction(func(L *lua.LState) int {
		env.write(L, L.CheckString(1))
		return 0
	}))
	L.SetGlobal("__emit_value", L.NewFunction(func(L *lua.LState) int {
		env.write(L, templateValue(L.Get(1)))
		return 0
	}))
	b.tmpl = env
	return env
}

// write appends to the output, charged to the VM's budget like the
// script's own strings: a loop can't grow the prompt without bound.
func (e *templateEnv) write(L *lua.LState, s string) {
	e.vm.Charge(len(s))
	e.out.WriteString(s)
}

func (b *promptBuilder) closeTemplates() {
	if b.tmpl != nil {
		b.tmpl.vm.Close()
		b.tmpl = nil
	}
}

// templateValue is how a value reads in text: nil as nothing, tables as
// JSON, the rest as tostring does.
func templateValue(v lua.LValue) string {
	switch v := v.(type) {
	case *lua.LNilType:
		return ""
	case *lua.LTable:
		if plain, ok := luavm.ToGo(v); ok {
			if out, err := json.Marshal(plain); err == nil {
				return string(out)
			}
		}
	}
	return v.String()
}

// compileTemplate turns text with tags into Lua that emits it. ok is false
// when the text has no complete tag.
func compileTemplate(s string) (code string, ok bool) {
	var out strings.Builder
	text := func(t string) {
		if t != "" {
			out.WriteString("__emit(" + luaQuote(t) + ")\n")
		}
	}
	trimNext := false
	for {
		i := indexTag(s)
		if i < 0 {
			break
		}
		isExpr := s[i+1] == '{'
		closer := "%}"
		if isExpr {
			closer = "}}"
		}
		j := strings.Index(s[i+2:], closer)
		if j < 0 {
			break
		}
		before, inner := s[:i], s[i+2:i+2+j]
		rest := s[i+2+j+2:]
		if trimNext {
			before = strings.TrimLeft(before, " \t\r\n")
		}
		if strings.HasPrefix(inner, "-") {
			inner = inner[1:]
			before = strings.TrimRight(before, " \t\r\n")
		}
		trimNext = strings.HasSuffix(inner, "-")
		if trimNext {
			inner = inner[:len(inner)-1]
		}
		text(before)
		if isExpr {
			out.WriteString("__emit_value((" + inner + "\n))\n")
		} else {
			out.WriteString(inner + "\n")
		}
		ok = true
		s = rest
	}
	if trimNext {
		s = strings.TrimLeft(s, " \t\r\n")
	}
	text(s)
	return out.String(), ok
}

// indexTag finds the next "{{" or "{%".
func indexTag(s string) int {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '{' && (s[i+1] == '{' || s[i+1] == '%') {
			return i
		}
	}
	return -1
}

// luaQuote writes s as a Lua 5.1 string literal.
func luaQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, `\%03d`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

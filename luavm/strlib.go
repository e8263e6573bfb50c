package luavm

import (
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The pattern functions of the string library (find, match, gmatch, gsub)
// on the bounded matcher, with Lua 5.1's semantics (lstrlib.c).

// protect runs f and turns a matcher failure into a Lua error; other panics
// (Lua errors raised by a gsub callback) pass through.
func (x *luaLib) protect(L *lua.LState, f func()) {
	var msg string
	func() {
		defer func() {
			if r := recover(); r != nil {
				pe, ok := r.(patError)
				if !ok {
					panic(r)
				}
				msg = pe.msg
			}
		}()
		f()
	}()
	if msg != "" {
		L.RaiseError("%s", msg)
	}
}

func (v patValue) lvalue() lua.LValue {
	if v.isPos {
		return lua.LNumber(v.pos)
	}
	return lua.LString(v.str)
}

func (m *patMatcher) values(s, e int, whole bool) []lua.LValue {
	n := m.captureCount(whole)
	out := make([]lua.LValue, n)
	for i := range out {
		out[i] = m.captureValue(i, s, e).lvalue()
	}
	return out
}

// posRelative turns a negative string position into one from the start.
func posRelative(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	return max(pos, 0)
}

// find implements string.find (find) and string.match (!find).
func (x *luaLib) find(find bool) lua.LGFunction {
	return func(L *lua.LState) int {
		s, p := L.CheckString(1), L.CheckString(2)
		init := posRelative(L.OptInt(3, 1), len(s)) - 1
		init = max(0, min(init, len(s)))
		if find && (lua.LVAsBool(L.Get(4)) || !strings.ContainsAny(p, patSpecials)) {
			x.step(L, (len(s)-init)/8)
			if i := strings.Index(s[init:], p); i >= 0 {
				L.Push(lua.LNumber(init + i + 1))
				L.Push(lua.LNumber(init + i + len(p)))
				return 2
			}
			L.Push(lua.LNil)
			return 1
		}
		anchor := strings.HasPrefix(p, "^")
		if anchor {
			p = p[1:]
		}
		m := &patMatcher{src: s, pat: p, budget: x.b}
		var out []lua.LValue
		x.protect(L, func() {
			for s1 := init; ; {
				m.level = 0
				if e := m.match(s1, 0); e != -1 {
					if find {
						out = append([]lua.LValue{lua.LNumber(s1 + 1), lua.LNumber(e)}, m.values(s1, e, false)...)
					} else {
						out = m.values(s1, e, true)
					}
					return
				}
				if s1++; s1 > len(s) || anchor {
					return
				}
			}
		})
		if out == nil {
			L.Push(lua.LNil)
			return 1
		}
		for _, v := range out {
			L.Push(v)
		}
		return len(out)
	}
}

// gmatch implements string.gmatch: an iterator over the matches.
func (x *luaLib) gmatch(L *lua.LState) int {
	s, p := L.CheckString(1), L.CheckString(2)
	x.alloc(L, luaCostFunction)
	pos := 0
	L.Push(L.NewFunction(func(L *lua.LState) int {
		m := &patMatcher{src: s, pat: p, budget: x.b}
		var out []lua.LValue
		x.protect(L, func() {
			for src := pos; src <= len(s); src++ {
				m.level = 0
				if e := m.match(src, 0); e != -1 {
					pos = e
					if e == src {
						pos++ // an empty match: go on at least one byte
					}
					out = m.values(src, e, true)
					return
				}
			}
			pos = len(s) + 1
		})
		for _, v := range out {
			L.Push(v)
		}
		return len(out)
	}))
	return 1
}

// gsub implements string.gsub with a cap on the result's size.
func (x *luaLib) gsub(L *lua.LState) int {
	src, p := L.CheckString(1), L.CheckString(2)
	repl := L.Get(3)
	switch repl.Type() {
	case lua.LTNumber, lua.LTString, lua.LTTable, lua.LTFunction:
	default:
		L.ArgError(3, "string/function/table expected")
	}
	maxN := L.OptInt(4, len(src)+1)
	anchor := strings.HasPrefix(p, "^")
	if anchor {
		p = p[1:]
	}
	m := &patMatcher{src: src, pat: p, budget: x.b}
	var b strings.Builder
	n := 0
	x.protect(L, func() {
		s := 0
	loop:
		for n < maxN {
			m.level = 0
			e := m.match(s, 0)
			if e != -1 {
				n++
				x.addValue(L, m, &b, s, e, repl)
			}
			switch {
			case e != -1 && e > s:
				s = e
			case s < len(src):
				b.WriteByte(src[s])
				s++
			default:
				break loop
			}
			if b.Len() > luaMaxString {
				m.fail(errLuaStringSize.Error())
			}
			if anchor {
				break
			}
		}
		b.WriteString(src[min(s, len(src)):])
	})
	x.allocString(L, b.Len())
	L.Push(lua.LString(b.String()))
	L.Push(lua.LNumber(n))
	return 2
}

// addValue appends the replacement for the match [s, e) (add_value).
func (x *luaLib) addValue(L *lua.LState, m *patMatcher, b *strings.Builder, s, e int, repl lua.LValue) {
	var val lua.LValue
	switch r := repl.(type) {
	case lua.LString, lua.LNumber:
		x.addString(m, b, s, e, lua.LVAsString(r))
		return
	case *lua.LFunction:
		args := m.values(s, e, true)
		L.Push(r)
		for _, a := range args {
			L.Push(a)
		}
		L.Call(len(args), 1)
		val = L.Get(-1)
		L.Pop(1)
	case *lua.LTable:
		val = L.GetTable(r, m.captureValue(0, s, e).lvalue())
	}
	if !lua.LVAsBool(val) {
		b.WriteString(m.src[s:e]) // nil or false: keep the original text
		return
	}
	if !lua.LVCanConvToString(val) {
		L.RaiseError("invalid replacement value (a %s)", val.Type().String())
	}
	b.WriteString(lua.LVAsString(val))
}

// addString expands a replacement string: %0 is the match, %1-%9 captures,
// %x a literal x (add_s).
func (x *luaLib) addString(m *patMatcher, b *strings.Builder, s, e int, news string) {
	for i := 0; i < len(news); i++ {
		c := news[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i++; i == len(news) {
			break
		}
		switch c = news[i]; {
		case c < '0' || c > '9':
			b.WriteByte(c)
		case c == '0':
			b.WriteString(m.src[s:e])
		default:
			v := m.captureValue(int(c-'1'), s, e)
			if v.isPos {
				b.WriteString(strconv.Itoa(v.pos))
			} else {
				b.WriteString(v.str)
			}
		}
		if b.Len() > luaMaxString {
			return // gsub's loop reports it
		}
	}
}

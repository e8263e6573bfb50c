package luavm

import (
	"math/bits"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// luaLib is the library a frontmatter sees: the base, string and table
// libraries, allowlisted, with every function that can create memory or run
// long replaced by one that charges the evaluation's budget. The hidden
// functions (hiddenNames) are what the rewritten syntax tree calls for
// concatenation, table writes, table constructors and closures.
type luaLib struct {
	b *luaBudget
}

// Safe as they are: they allocate nothing that lasts, or no more than the
// registry and call-stack limits allow.
var (
	luaBaseAllowed = []string{"assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall",
		"rawequal", "rawget", "select", "setmetatable", "tonumber", "type", "xpcall", "_G", "_VERSION"}
	luaStringAllowed = []string{"len", "sub"}
	luaTableAllowed  = []string{"getn", "maxn", "remove"}
)

func (x *luaLib) step(L *lua.LState, n int) {
	if !x.b.step(n) {
		L.RaiseError("%s", x.b.failed.Error())
	}
}

func (x *luaLib) alloc(L *lua.LState, n int) {
	if !x.b.alloc(n) {
		L.RaiseError("%s", x.b.failed.Error())
	}
}

// allocString charges a new string of n bytes, refusing one over the cap.
func (x *luaLib) allocString(L *lua.LState, n int) {
	if n > luaMaxString {
		L.RaiseError("%s", errLuaStringSize.Error())
	}
	x.alloc(L, n)
	x.step(L, n/64)
}

// open installs the libraries; everything not allowlisted or wrapped is
// removed (io, os, load, print, string.dump, collectgarbage …).
func (x *luaLib) open(L *lua.LState) {
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	str := g.RawGetString("string").(*lua.LTable)
	tab := g.RawGetString("table").(*lua.LTable)
	orig := func(t *lua.LTable, name string) lua.LGFunction {
		return t.RawGetString(name).(*lua.LFunction).GFunction
	}

	base := map[string]lua.LValue{
		"tostring": L.NewFunction(x.sized(orig(g, "tostring"))),
		"rawset":   L.NewFunction(x.rawset(orig(g, "rawset"))),
		"unpack":   L.NewFunction(x.unpack(orig(g, "unpack"))),
		"string":   str, "table": tab,
	}
	strs := map[string]lua.LValue{
		"find": L.NewFunction(x.find(true)), "match": L.NewFunction(x.find(false)),
		"gmatch": L.NewFunction(x.gmatch), "gfind": L.NewFunction(x.gmatch), "gsub": L.NewFunction(x.gsub),
		"rep": L.NewFunction(x.rep), "byte": L.NewFunction(x.byteValues(orig(str, "byte"))), "format": L.NewFunction(x.format(orig(str, "format"))),
		"upper": L.NewFunction(x.sized(orig(str, "upper"))), "lower": L.NewFunction(x.sized(orig(str, "lower"))),
		"reverse": L.NewFunction(x.sized(orig(str, "reverse"))), "char": L.NewFunction(x.sized(orig(str, "char"))),
		"__index": str,
	}
	tabs := map[string]lua.LValue{
		"concat": L.NewFunction(x.concatTable), "insert": L.NewFunction(x.insert(orig(tab, "insert"))),
		"sort": L.NewFunction(x.sort(orig(tab, "sort"))),
	}
	keep(g, luaBaseAllowed, base)
	keep(str, luaStringAllowed, strs)
	keep(tab, luaTableAllowed, tabs)
}

// keep leaves only the allowed fields of t and sets the replacements.
func keep(t *lua.LTable, allowed []string, set map[string]lua.LValue) {
	var drop []lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || !contains(allowed, string(name)) {
			drop = append(drop, k)
		}
	})
	for _, k := range drop {
		t.RawSet(k, lua.LNil)
	}
	for k, v := range set {
		t.RawSetString(k, v)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sized wraps a function returning one string: its length is charged.
func (x *luaLib) sized(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if n := L.GetTop(); n > 0 { // string.upper/lower/reverse copy their input
			x.step(L, n)
			if s, ok := L.Get(1).(lua.LString); ok && len(s) > luaMaxString {
				L.RaiseError("%s", errLuaStringSize.Error())
			}
		}
		ret := f(L)
		if ret > 0 {
			x.allocString(L, len(lua.LVAsString(L.Get(-1))))
		}
		return ret
	}
}

// rep is string.rep with a cap on the result size.
func (x *luaLib) rep(L *lua.LState) int {
	s, n := L.CheckString(1), L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if n > luaMaxString/len(s) {
		L.RaiseError("string.rep result too large")
	}
	x.allocString(L, n*len(s))
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// format checks the format as Lua 5.1 does (at most two digits of width
// and precision) and bounds the result before gopher-lua formats it.
func (x *luaLib) format(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		form := L.CheckString(1)
		size, arg := len(form), 1
		for i := 0; i < len(form); i++ {
			if form[i] != '%' {
				continue
			}
			if i++; i < len(form) && form[i] == '%' {
				continue
			}
			for i < len(form) && strings.IndexByte("-+ #0", form[i]) >= 0 {
				i++
			}
			for part := 0; part < 2; part++ { // width, then precision
				digits := 0
				for ; i < len(form) && form[i] >= '0' && form[i] <= '9'; i++ {
					if digits++; digits > 2 {
						L.RaiseError("invalid format (width or precision too long)")
					}
				}
				if part == 0 && i < len(form) && form[i] == '.' {
					i++
					continue
				}
				break
			}
			arg++
			switch {
			case i < len(form) && (form[i] == 's' || form[i] == 'q'):
				size += 2*len(L.Get(arg).String()) + 2 + 99
			default:
				size += 512 // a number: at most 99 digits of width, 99 of precision, 309 of exponent
			}
		}
		if size > luaMaxString {
			L.RaiseError("%s", errLuaStringSize.Error())
		}
		x.step(L, size/64)
		ret := f(L)
		x.allocString(L, len(lua.LVAsString(L.Get(-1))))
		return ret
	}
}

// concatTable is table.concat with the result size checked before joining.
func (x *luaLib) concatTable(L *lua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i, j := L.OptInt(3, 1), L.OptInt(4, t.Len())
	var b strings.Builder
	size := 0
	for k := i; k <= j; k++ {
		x.step(L, 1)
		v := t.RawGetInt(k)
		if !lua.LVCanConvToString(v) {
			L.RaiseError("invalid value (at index %d) in table for 'concat'", k)
		}
		if size += len(lua.LVAsString(v)); k < j {
			size += len(sep)
		}
		if size > luaMaxString {
			L.RaiseError("%s", errLuaStringSize.Error())
		}
	}
	x.allocString(L, size)
	b.Grow(size)
	for k := i; k <= j; k++ {
		b.WriteString(lua.LVAsString(t.RawGetInt(k)))
		if k < j {
			b.WriteString(sep)
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

func (x *luaLib) insert(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		x.alloc(L, CostEntry)
		x.step(L, L.CheckTable(1).Len()/64) // an insert at a position shifts the rest
		return f(L)
	}
}

func (x *luaLib) sort(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := L.CheckTable(1).Len()
		x.step(L, n*bits.Len(uint(n)))
		return f(L)
	}
}

// luaMaxResults is how many values string.byte and unpack may return:
// Lua 5.1's C stack limit (LUAI_MAXCSTACK). Each value is a registry slot,
// and gopher-lua grows its registry by copying it.
const luaMaxResults = 8000

func (x *luaLib) unpack(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		t := L.CheckTable(1)
		i, j := L.OptInt(2, 1), L.OptInt(3, t.Len())
		if j >= i && j-i >= luaMaxResults {
			L.RaiseError("too many results to unpack")
		}
		ret := f(L)
		x.step(L, ret)
		return ret
	}
}

func (x *luaLib) byteValues(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		s := L.CheckString(1)
		i := posRelative(L.OptInt(2, 1), len(s))
		j := posRelative(L.OptInt(3, i), len(s))
		if j = min(j, len(s)); j >= i && j-i >= luaMaxResults {
			L.RaiseError("string slice too long")
		}
		ret := f(L)
		x.step(L, ret)
		return ret
	}
}

func (x *luaLib) rawset(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		t := L.CheckTable(1)
		if L.Get(3) != lua.LNil && t.RawGet(L.Get(2)) == lua.LNil {
			x.alloc(L, CostEntry)
		}
		return f(L)
	}
}

// The hidden functions the rewritten code calls (lua_rewrite.go).

// setIndex is `obj[key] = value` (Lua 5.1's settable, metamethods
// included), charging a new key of a plain table.
func (x *luaLib) setIndex(L *lua.LState) int {
	obj, key, val := L.Get(1), L.Get(2), L.Get(3)
	for i := 0; i < lua.MaxTableGetLoop; i++ {
		tb, isTable := obj.(*lua.LTable)
		if isTable && tb.RawGet(key) != lua.LNil {
			L.RawSet(tb, key, val)
			return 0
		}
		meta := L.GetMetaField(obj, "__newindex")
		if meta == lua.LNil {
			if !isTable {
				L.RaiseError("attempt to index a non-table object(%v) with key '%s'", obj.Type().String(), key.String())
			}
			if val != lua.LNil {
				x.alloc(L, CostEntry)
			}
			L.RawSet(tb, key, val)
			return 0
		}
		if fn, ok := meta.(*lua.LFunction); ok {
			L.Push(fn)
			L.Push(obj)
			L.Push(key)
			L.Push(val)
			L.Call(3, 0)
			return 0
		}
		obj = meta
	}
	L.RaiseError("too many recursions in settable")
	return 0
}

// newTable charges a table built by a constructor and returns it.
func (x *luaLib) newTable(L *lua.LState) int {
	t := L.Get(1)
	if tb, ok := t.(*lua.LTable); ok {
		n := 0
		tb.ForEach(func(_, _ lua.LValue) { n++ })
		x.step(L, n)
		x.alloc(L, CostTable+n*CostEntry)
	}
	L.Push(t)
	return 1
}

// newFunction charges a closure and returns it.
func (x *luaLib) newFunction(L *lua.LState) int {
	x.alloc(L, luaCostFunction)
	L.Push(L.Get(1))
	return 1
}

// concat is the `..` operator over all operands of a chain, right to left
// as the VM does it (a __concat metamethod for other operands), with the
// result size checked before the bytes are copied.
func (x *luaLib) concat(L *lua.LState) int {
	n := L.GetTop()
	rhs := L.Get(n)
	for i := n - 1; i >= 1; {
		lhs := L.Get(i)
		if lua.LVCanConvToString(lhs) && lua.LVCanConvToString(rhs) {
			j := i
			for j > 1 && lua.LVCanConvToString(L.Get(j-1)) {
				j--
			}
			size := len(lua.LVAsString(rhs))
			for k := j; k <= i; k++ {
				if size += len(lua.LVAsString(L.Get(k))); size > luaMaxString {
					L.RaiseError("%s", errLuaStringSize.Error())
				}
			}
			x.allocString(L, size)
			var b strings.Builder
			b.Grow(size)
			for k := j; k <= i; k++ {
				b.WriteString(lua.LVAsString(L.Get(k)))
			}
			b.WriteString(lua.LVAsString(rhs))
			rhs = lua.LString(b.String())
			i = j - 1
			continue
		}
		op := L.GetMetaField(lhs, "__concat")
		if op == lua.LNil {
			op = L.GetMetaField(rhs, "__concat")
		}
		fn, ok := op.(*lua.LFunction)
		if !ok {
			L.RaiseError("cannot perform concat operation between %v and %v", lhs.Type().String(), rhs.Type().String())
		}
		L.Push(fn)
		L.Push(lhs)
		L.Push(rhs)
		L.Call(2, 1)
		rhs = L.Get(-1)
		L.Pop(1)
		i--
	}
	L.Push(rhs)
	return 1
}

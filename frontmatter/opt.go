package frontmatter

import (
	"strconv"
	"strings"

	"github.com/chatls/chatls/luavm"
	lua "github.com/yuin/gopher-lua"
)

// optRecorder gives Lua a `flemma.opt` that records changes instead of
// holding values: Flemma's options are inherited from config the frontmatter
// never sees, so list values are proxies whose operations are recorded
// relative to the inherited list (SPEC §1, §4).
type optRecorder struct {
	fm        *source
	vm        *luavm.VM // what the recorder builds is charged like the script's own objects
	L         *lua.LState
	pathMeta  *lua.LTable
	derivMeta *lua.LTable
}

// optPath is `flemma.opt.a.b` read as a value: the inherited option.
type optPath struct{ path string }

// optDerived is an inherited list plus pending operations (`x + "a" - "b"`),
// recorded when assigned back to the same option.
type optDerived struct {
	path string
	ops  []OptionOp
}

var listMethods = map[string]string{"append": "append", "prepend": "prepend", "remove": "remove", "set": "set"}

func (r *optRecorder) install(L *lua.LState) {
	r.L = L
	r.pathMeta = L.NewTable()
	r.pathMeta.RawSetString("__index", L.NewFunction(r.pathIndex))
	r.pathMeta.RawSetString("__newindex", L.NewFunction(r.pathNewIndex))
	r.pathMeta.RawSetString("__add", L.NewFunction(r.arith("append")))
	r.pathMeta.RawSetString("__sub", L.NewFunction(r.arith("remove")))
	r.pathMeta.RawSetString("__tostring", L.NewFunction(r.toString))
	r.derivMeta = L.NewTable()
	r.derivMeta.RawSetString("__index", L.NewFunction(r.derivedIndex))
	r.derivMeta.RawSetString("__add", L.NewFunction(r.arith("append")))
	r.derivMeta.RawSetString("__sub", L.NewFunction(r.arith("remove")))
	r.derivMeta.RawSetString("__tostring", L.NewFunction(r.toString))

	flemma := L.NewTable()
	flemmaMeta := L.NewTable()
	flemmaMeta.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		if L.CheckString(2) == "opt" {
			L.Push(r.newPath(""))
			return 1
		}
		L.Push(lua.LNil)
		return 1
	}))
	flemmaMeta.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		if L.CheckString(2) == "opt" {
			r.assign("", L.Get(3))
			return 0
		}
		L.RawSet(L.CheckTable(1), L.Get(2), L.Get(3))
		return 0
	}))
	L.SetMetatable(flemma, flemmaMeta)
	L.SetGlobal("flemma", flemma)
}

// charge counts n bytes the recorder creates for the script (a path string,
// recorded values): `p = p.x` in a loop must not grow without bound.
func (r *optRecorder) charge(n int) {
	r.vm.Charge(n)
}

func (r *optRecorder) newPath(path string) *lua.LUserData {
	r.charge(luavm.CostTable + len(path))
	ud := r.L.NewUserData()
	ud.Value = &optPath{path: path}
	r.L.SetMetatable(ud, r.pathMeta)
	return ud
}

func (r *optRecorder) newDerived(d *optDerived) *lua.LUserData {
	r.charge(luavm.CostTable + len(d.ops)*luavm.CostEntry)
	ud := r.L.NewUserData()
	ud.Value = d
	r.L.SetMetatable(ud, r.derivMeta)
	return ud
}

func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// line is the document line of the Lua code running now (chunk line k is
// document line k, the opener being line 0).
// The nearest Lua frame is looked up: metamethods are reached through Go
// functions (the instrumented `t.k = v` calls setIndex).
func (r *optRecorder) line() int {
	for level := 1; level <= 8; level++ {
		where := r.L.Where(level)
		if !strings.HasPrefix(where, luaChunkName+":") {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(where, luaChunkName+":"), ":")); err == nil {
			return n
		}
	}
	return 0
}

func (r *optRecorder) emit(path, op string, values []any) {
	r.charge(luavm.CostEntry + len(path))
	r.fm.Options = append(r.fm.Options, OptionOp{Path: path, Op: op, Values: values, Line: r.line()})
}

func (r *optRecorder) pathIndex(L *lua.LState) int {
	p := L.CheckUserData(1).Value.(*optPath)
	key := L.CheckString(2)
	if op, ok := listMethods[key]; ok && p.path != "" {
		L.Push(L.NewFunction(func(L *lua.LState) int {
			r.emit(p.path, op, r.values(L.Get(2)))
			L.Push(L.Get(1))
			return 1
		}))
		return 1
	}
	L.Push(r.newPath(childPath(p.path, key)))
	return 1
}

func (r *optRecorder) pathNewIndex(L *lua.LState) int {
	p := L.CheckUserData(1).Value.(*optPath)
	r.assign(childPath(p.path, L.CheckString(2)), L.Get(3))
	return 0
}

func (r *optRecorder) derivedIndex(L *lua.LState) int {
	d := L.CheckUserData(1).Value.(*optDerived)
	op, ok := listMethods[L.CheckString(2)]
	if !ok {
		L.RaiseError("flemma.opt.%s: a list has no field %q", d.path, L.CheckString(2))
	}
	L.Push(L.NewFunction(func(L *lua.LState) int {
		r.charge(luavm.CostEntry)
		d.ops = append(d.ops, OptionOp{Path: d.path, Op: op, Values: r.values(L.Get(2))})
		L.Push(L.Get(1))
		return 1
	}))
	return 1
}

// arith implements `list + v` (append) and `list - v` (remove), and `v + list`
// (prepend). The result is a new derived value; operands are not changed.
func (r *optRecorder) arith(op string) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b := L.Get(1), L.Get(2)
		base, ok := r.asDerived(a)
		other := b
		if !ok {
			if base, ok = r.asDerived(b); !ok || op != "append" {
				L.RaiseError("unsupported operation on flemma.opt")
			}
			op, other = "prepend", a
		}
		base.ops = append(base.ops, OptionOp{Path: base.path, Op: op, Values: r.values(other)})
		L.Push(r.newDerived(base))
		return 1
	}
}

// asDerived copies a path or derived value into a fresh derived value.
func (r *optRecorder) asDerived(v lua.LValue) (*optDerived, bool) {
	ud, ok := v.(*lua.LUserData)
	if !ok {
		return nil, false
	}
	switch x := ud.Value.(type) {
	case *optPath:
		return &optDerived{path: x.path}, x.path != ""
	case *optDerived:
		return &optDerived{path: x.path, ops: append([]OptionOp(nil), x.ops...)}, true
	}
	return nil, false
}

func (r *optRecorder) toString(L *lua.LState) int {
	switch x := L.CheckUserData(1).Value.(type) {
	case *optPath:
		L.Push(lua.LString("flemma.opt." + x.path))
	case *optDerived:
		L.Push(lua.LString("flemma.opt." + x.path + " (modified)"))
	}
	return 1
}

// assign records `flemma.opt.<path> = value`.
func (r *optRecorder) assign(path string, value lua.LValue) {
	L := r.L
	switch v := value.(type) {
	case *lua.LUserData:
		switch x := v.Value.(type) {
		case *optPath:
			if x.path != path {
				L.RaiseError("cannot copy flemma.opt.%s into flemma.opt.%s", x.path, path)
			}
		case *optDerived:
			if x.path != path {
				L.RaiseError("cannot copy flemma.opt.%s into flemma.opt.%s", x.path, path)
			}
			line := r.line()
			r.charge(len(x.ops) * luavm.CostEntry)
			for _, op := range x.ops {
				op.Line = line
				r.fm.Options = append(r.fm.Options, op)
			}
		default:
			L.RaiseError("flemma.opt.%s: unsupported value", path)
		}
	case *lua.LTable:
		keys := luavm.SortedKeys(v)
		if v.Len() > 0 || len(keys) == 0 {
			if len(keys) > 0 || (path == "" && v.Len() > 0) {
				L.RaiseError("flemma.opt.%s: a table must be a list or have only named fields", path)
			}
			if path != "" {
				r.emit(path, "set", r.values(v))
			}
			return
		}
		for _, k := range keys {
			r.assign(childPath(path, k), v.RawGetString(k))
		}
	default:
		if path == "" {
			L.RaiseError("flemma.opt must be a table")
		}
		if value == lua.LNil {
			r.emit(path, "set", nil)
			return
		}
		r.emit(path, "set", r.values(value))
	}
}

// values converts a scalar or a list of scalars to option values.
func (r *optRecorder) values(v lua.LValue) []any {
	if t, ok := v.(*lua.LTable); ok {
		r.charge(t.Len() * luavm.CostEntry)
		out := make([]any, 0, t.Len())
		for i := 1; i <= t.Len(); i++ {
			out = append(out, r.scalar(t.RawGetInt(i)))
		}
		return out
	}
	return []any{r.scalar(v)}
}

func (r *optRecorder) scalar(v lua.LValue) any {
	switch v := v.(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return float64(v)
	case lua.LBool:
		return bool(v)
	}
	r.L.RaiseError("option values must be strings, numbers or booleans, not %s", v.Type().String())
	return nil
}

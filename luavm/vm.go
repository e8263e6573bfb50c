// Package luavm is the sandboxed Lua that .chat documents run: frontmatter
// (SPEC §1) and templates ({{ expr }}, {% code %}). It offers only the
// base, string and table libraries (no io, os, require, load, print …) and
// bounds every evaluation in work and memory by counts of its own, so the
// outcome is the same whatever else the process does.
package luavm

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

const (
	luaCallStackSize  = 200
	luaRegistryMax    = 256 * 1024
	luaMaxConvertDeep = 8
)

// VM is one sandboxed Lua state. Code run in it shares its globals: a
// frontmatter's variables are what the document's templates see. Not safe
// for concurrent use.
type VM struct {
	L      *lua.LState
	budget *luaBudget
	lib    *luaLib
	// builtins are the globals before any code ran.
	builtins map[string]bool
}

// New starts a VM; what names its code in messages ("the frontmatter").
func New(what string) *VM {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: luaCallStackSize,
		RegistrySize: 1024, RegistryGrowStep: 4096, RegistryMaxSize: luaRegistryMax})
	vm := &VM{L: L, budget: newLuaBudget(what)}
	vm.lib = &luaLib{b: vm.budget}
	vm.lib.open(L)
	L.SetContext(luaContext{vm.budget})
	vm.builtins = map[string]bool{}
	L.G.Global.ForEach(func(k, _ lua.LValue) { vm.builtins[k.String()] = true })
	return vm
}

// Close frees the state.
func (vm *VM) Close() { vm.L.Close() }

// Reserve marks a global the host installs (not a variable of the code).
func (vm *VM) Reserve(name string) { vm.builtins[name] = true }

// Charge counts n bytes the host creates on the code's behalf, with the
// work of copying them; it raises a Lua error once over budget.
func (vm *VM) Charge(n int) {
	if !(vm.budget.alloc(n) && vm.budget.step(n/64)) {
		vm.L.RaiseError("%s", vm.budget.failed.Error())
	}
}

// Run parses, checks, instruments and runs code as the chunk named chunk
// (error messages say "CHUNK:LINE: …"). A limit hit is the error, not
// where the code happened to be then.
func (vm *VM) Run(chunk, code string) error {
	_, err := vm.run(chunk, code, 0)
	return err
}

// run is Run with nret results taken from the chunk's return statement.
func (vm *VM) run(chunk, code string, nret int) (results []lua.LValue, err error) {
	if len(code) > MaxSource {
		return nil, fmt.Errorf("%s is too long (over %d KB)", vm.budget.what, MaxSource>>10)
	}
	defer func() {
		if r := recover(); r != nil { // gopher-lua panics on some internal limits
			err = fmt.Errorf("%v", r)
		}
		if vm.budget.failed != nil && err != nil {
			err = vm.budget.failed
		}
	}()
	stmts, err := parse.Parse(strings.NewReader(code), chunk)
	if err != nil {
		return nil, err
	}
	if err := checkDepth(stmts, chunk, vm.budget.what); err != nil {
		return nil, err
	}
	proto, err := lua.Compile(instrument(stmts), chunk)
	if err != nil {
		return nil, err
	}
	L, lib := vm.L, vm.lib
	top := L.GetTop()
	L.Push(L.NewFunctionFromProto(proto))
	for _, fn := range []lua.LGFunction{lib.concat, lib.setIndex, lib.newTable, lib.newFunction} {
		L.Push(L.NewFunction(fn)) // in the order of hiddenNames
	}
	if err := L.PCall(len(hiddenNames), nret, nil); err != nil {
		return nil, err
	}
	for i := top + 1; i <= L.GetTop(); i++ {
		results = append(results, L.Get(i))
	}
	L.SetTop(top)
	return results, nil
}

// Eval evaluates a Lua expression and returns its value as text
// (tostring), for a template's {{ expr }}.
func (vm *VM) Eval(chunk, expr string) (string, error) {
	results, err := vm.run(chunk, "return tostring(("+expr+"\n))", 1)
	if err != nil {
		return "", err
	}
	return results[0].String(), nil
}

// Vars are the code's own globals as plain Go values (strings, float64,
// bools, []any, map[string]any): a frontmatter's template variables.
func (vm *VM) Vars() map[string]any {
	vars := map[string]any{}
	vm.L.G.Global.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || vm.builtins[string(name)] {
			return
		}
		if val, ok := ToGo(v); ok {
			vars[string(name)] = val
		}
	})
	if len(vars) == 0 {
		return nil
	}
	return vars
}

// SetVars installs plain Go values as globals (a JSON frontmatter's
// variables for its templates).
func (vm *VM) SetVars(vars map[string]any) {
	for name, v := range vars {
		vm.L.SetGlobal(name, vm.fromGo(v, 0))
	}
}

func (vm *VM) fromGo(v any, depth int) lua.LValue {
	if depth > luaMaxConvertDeep {
		return lua.LNil
	}
	switch v := v.(type) {
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case int:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	case []any:
		t := vm.L.NewTable()
		for _, item := range v {
			t.Append(vm.fromGo(item, depth+1))
		}
		return t
	case map[string]any:
		t := vm.L.NewTable()
		for k, item := range v {
			t.RawSetString(k, vm.fromGo(item, depth+1))
		}
		return t
	}
	return lua.LNil
}

// ToGo converts plain data (strings, numbers, booleans, tables of them);
// ok is false for anything else (functions, userdata) and deep nesting.
func ToGo(v lua.LValue) (any, bool) { return toGo(v, 0) }

func toGo(v lua.LValue, depth int) (any, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return float64(v), true
	case lua.LBool:
		return bool(v), true
	case *lua.LTable:
		if depth >= luaMaxConvertDeep {
			return nil, false
		}
		if n := v.Len(); n > 0 {
			list := make([]any, 0, n)
			for i := 1; i <= n; i++ {
				if item, ok := toGo(v.RawGetInt(i), depth+1); ok {
					list = append(list, item)
				}
			}
			return list, true
		}
		obj := map[string]any{}
		v.ForEach(func(k, item lua.LValue) {
			if key, ok := k.(lua.LString); ok {
				if val, ok := toGo(item, depth+1); ok {
					obj[string(key)] = val
				}
			}
		})
		return obj, true
	}
	return nil, false
}

// ErrorLine splits a Run error of chunk into its 1-based line (0 when it
// names none) and the message without location and traceback.
func ErrorLine(chunk string, err error) (line int, msg string) {
	msg = err.Error()
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		msg = apiErr.Object.String()
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // drop the traceback
	}
	msg = strings.TrimPrefix(msg, "<string>:")
	// Runtime errors say "CHUNK:3: …", syntax errors "CHUNK line:3(column:7) …",
	// compile errors "compile error near line(3) CHUNK: …".
	q := regexp.QuoteMeta(chunk)
	where := regexp.MustCompile(`^(?:` + q + `(?::| line:)(\d+)(?::|\(column:\d+\))|compile error near line\((\d+)\) ` + q + `:)\s*`)
	if m := where.FindStringSubmatchIndex(msg); m != nil {
		at := m[2:4]
		if at[0] < 0 {
			at = m[4:6]
		}
		line, _ = strconv.Atoi(msg[at[0]:at[1]])
		msg = strings.Join(strings.Fields(msg[m[1]:]), " ")
	}
	return line, msg
}

// SortedKeys are the string keys of a table, sorted.
func SortedKeys(t *lua.LTable) []string {
	var keys []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			keys = append(keys, string(s))
		}
	})
	sort.Strings(keys)
	return keys
}

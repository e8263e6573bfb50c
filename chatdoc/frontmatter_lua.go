package chatdoc

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
	luaChunkName      = "frontmatter"
	luaMaxConvertDeep = 8
)

var (
	// Runtime errors say "frontmatter:3: …", syntax errors "frontmatter line:3(column:7) …",
	// compile errors "compile error near line(3) frontmatter: …".
	luaWhere = regexp.MustCompile(`^(?:` + luaChunkName + `(?::| line:)(\d+)(?::|\(column:\d+\))|compile error near line\((\d+)\) ` + luaChunkName + `:)\s*`)
)

// evaluateLua runs the frontmatter in a sandbox (base, string and table
// libraries only; no io, os, require or load), bounded in work and memory by
// counts of its own (lua_budget.go), so the outcome is the same whatever
// else the process does. Options recorded before an error are kept (they
// are what the script did); Frontmatter.Error says the run was incomplete.
func evaluateLua(fm *Frontmatter) []Diagnostic {
	if len(fm.Code) > luaMaxSource {
		return []Diagnostic{luaErrorDiagnostic(fm, errLuaSource)}
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: luaCallStackSize,
		RegistrySize: 1024, RegistryGrowStep: 4096, RegistryMaxSize: luaRegistryMax})
	defer L.Close()
	budget := newLuaBudget()
	lib := &luaLib{b: budget}
	lib.open(L)
	L.SetContext(luaContext{budget})

	before := globalNames(L)
	rec := &optRecorder{fm: fm, b: budget}
	rec.install(L)
	err := runChunk(L, lib, fm.Code)
	if budget.failed != nil && err != nil {
		err = budget.failed // the limit, not where the script happened to be
	}
	fm.Vars = collectVars(L, before)
	if err == nil {
		return nil
	}
	return []Diagnostic{luaErrorDiagnostic(fm, err)}
}

// runChunk parses, checks, instruments and runs the code.
func runChunk(L *lua.LState, lib *luaLib, code string) (err error) {
	defer func() {
		if r := recover(); r != nil { // gopher-lua panics on some internal limits
			err = fmt.Errorf("%v", r)
		}
	}()
	chunk, err := parse.Parse(strings.NewReader(code), luaChunkName)
	if err != nil {
		return err
	}
	if err := checkDepth(chunk); err != nil {
		return err
	}
	proto, err := lua.Compile(instrument(chunk), luaChunkName)
	if err != nil {
		return err
	}
	L.Push(L.NewFunctionFromProto(proto))
	for _, fn := range []lua.LGFunction{lib.concat, lib.setIndex, lib.newTable, lib.newFunction} {
		L.Push(L.NewFunction(fn)) // in the order of hiddenNames
	}
	return L.PCall(len(hiddenNames), 0, nil)
}

func luaErrorDiagnostic(fm *Frontmatter, err error) Diagnostic {
	msg := err.Error()
	var apiErr *lua.ApiError
	if errors.As(err, &apiErr) && apiErr.Object != nil {
		msg = apiErr.Object.String()
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i] // drop the traceback
	}
	msg = strings.TrimPrefix(msg, "<string>:")
	span := Span{0, fm.codeStart - 1}
	if m := luaWhere.FindStringSubmatchIndex(msg); m != nil {
		at := m[2:4]
		if at[0] < 0 {
			at = m[4:6]
		}
		line, _ := strconv.Atoi(msg[at[0]:at[1]])
		span = codeLineSpan(fm, line)
		msg = strings.Join(strings.Fields(msg[m[1]:]), " ")
	}
	return diag(span, SeverityError, CodeFrontmatterError, "", "Frontmatter error: %s", msg)
}

func globalNames(L *lua.LState) map[string]bool {
	names := map[string]bool{"flemma": true}
	L.G.Global.ForEach(func(k, _ lua.LValue) { names[k.String()] = true })
	return names
}

// collectVars keeps the script's own globals as template variables.
func collectVars(L *lua.LState, before map[string]bool) map[string]any {
	vars := map[string]any{}
	L.G.Global.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok || before[string(name)] {
			return
		}
		if val, ok := luaToGo(v, 0); ok {
			vars[string(name)] = val
		}
	})
	if len(vars) == 0 {
		return nil
	}
	return vars
}

// luaToGo converts plain data (strings, numbers, booleans, tables of them).
func luaToGo(v lua.LValue, depth int) (any, bool) {
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
				if item, ok := luaToGo(v.RawGetInt(i), depth+1); ok {
					list = append(list, item)
				}
			}
			return list, true
		}
		obj := map[string]any{}
		v.ForEach(func(k, item lua.LValue) {
			if key, ok := k.(lua.LString); ok {
				if val, ok := luaToGo(item, depth+1); ok {
					obj[string(key)] = val
				}
			}
		})
		return obj, true
	}
	return nil, false
}

func sortedKeys(t *lua.LTable) []string {
	var keys []string
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			keys = append(keys, string(s))
		}
	})
	sort.Strings(keys)
	return keys
}

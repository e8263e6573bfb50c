package chatdoc

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Limits of the frontmatter VM. A frontmatter sets a few options in well under
// a millisecond; anything near these limits is a mistake or an attack.
const (
	luaTimeout        = 100 * time.Millisecond
	luaAllocLimit     = 64 << 20 // bytes allocated (process-wide) while the script runs
	luaMaxStringRep   = 16 << 20
	luaCallStackSize  = 200
	luaRegistryMax    = 256 * 1024
	luaMonitorPeriod  = time.Millisecond
	luaChunkName      = "frontmatter"
	luaMaxConvertDeep = 8
)

var (
	errLuaMemory  = errors.New("the frontmatter used too much memory")
	errLuaTimeout = errors.New("the frontmatter ran too long (over 100ms)")
	// Runtime errors say "frontmatter:3: …", syntax errors "frontmatter line:3(column:7) …".
	luaWhere = regexp.MustCompile(`^` + luaChunkName + `(?::| line:)(\d+)(?::|\(column:\d+\))\s*`)
)

// unsafeBaseFuncs are removed from the base library: loading code, touching
// files, printing to stdout (the LSP channel), and GC control.
var unsafeBaseFuncs = []string{"dofile", "loadfile", "load", "loadstring", "require", "module",
	"collectgarbage", "print", "_printregs", "getfenv", "setfenv", "newproxy"}

// evaluateLua runs the frontmatter in a sandbox (base, string and table
// libraries only; no io, os, require or load), bounded in time and memory.
// Options recorded before an error are kept: they are what the script did.
func evaluateLua(fm *Frontmatter) []Diagnostic {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, CallStackSize: luaCallStackSize,
		RegistrySize: 1024, RegistryGrowStep: 256, RegistryMaxSize: luaRegistryMax})
	defer L.Close()
	openSafeLibs(L)

	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stopMonitor := monitorAllocations(cancel)
	defer stopMonitor()
	timer := time.AfterFunc(luaTimeout, func() { cancel(errLuaTimeout) })
	defer timer.Stop()
	L.SetContext(ctx)

	before := globalNames(L)
	rec := &optRecorder{fm: fm}
	rec.install(L)
	err := runChunk(L, fm.Code)
	if cause := context.Cause(ctx); cause != nil && err != nil {
		err = cause
	}
	fm.Vars = collectVars(L, before)
	if err == nil {
		return nil
	}
	return []Diagnostic{luaErrorDiagnostic(fm, err)}
}

func runChunk(L *lua.LState, code string) (err error) {
	defer func() {
		if r := recover(); r != nil { // gopher-lua panics on some internal limits
			err = fmt.Errorf("%v", r)
		}
	}()
	fn, err := L.Load(strings.NewReader(code), luaChunkName)
	if err != nil {
		return err
	}
	L.Push(fn)
	return L.PCall(0, 0, nil)
}

func openSafeLibs(L *lua.LState) {
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	for _, name := range unsafeBaseFuncs {
		L.SetGlobal(name, lua.LNil)
	}
	if str, ok := L.GetGlobal("string").(*lua.LTable); ok {
		str.RawSetString("rep", L.NewFunction(boundedRep))
	}
}

// boundedRep is string.rep with a cap on the result size.
func boundedRep(L *lua.LState) int {
	s, n := L.CheckString(1), L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(lua.LString(""))
		return 1
	}
	if n > luaMaxStringRep/len(s) {
		L.RaiseError("string.rep result too large")
	}
	L.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// monitorAllocations cancels the run when the process has allocated more
// than luaAllocLimit since it started. Process-wide, so generous: a
// frontmatter normally allocates a few kilobytes.
func monitorAllocations(cancel context.CancelCauseFunc) (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	start := sample[0].Value.Uint64()
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(luaMonitorPeriod)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(sample)
				if sample[0].Value.Uint64()-start > luaAllocLimit {
					cancel(errLuaMemory)
					return
				}
			}
		}
	}()
	return func() { close(done) }
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
		line, _ := strconv.Atoi(msg[m[2]:m[3]])
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

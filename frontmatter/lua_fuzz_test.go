package frontmatter

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/luavm"
)

// luaQuote writes s as a Lua string literal of decimal escapes: any bytes.
func luaQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		b.WriteString("\\" + strconv.Itoa(int(s[i])))
	}
	b.WriteByte('"')
	return b.String()
}

// smallLuaLimits makes the sandbox's budgets small for fuzzing: coverage
// instrumentation makes the VM many times slower.
func smallLuaLimits(t *testing.T) {
	t.Cleanup(luavm.SetLimits(100_000, 1<<20))
}

// assertLuaSane fails on what must never happen: a Go panic inside the
// sandbox (reported by gopher-lua as "runtime error"), or a run past the
// limits.
func assertLuaSane(t *testing.T, code string) *Evaluation {
	t.Helper()
	start := time.Now()
	d := parse("```lua\n" + code + "\n```\n@You:\n")
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %v", el)
	}
	if d.Frontmatter == nil {
		return nil
	}
	if e := d.Frontmatter.Error; strings.Contains(e, "runtime error") || strings.Contains(e, "nil pointer") {
		t.Fatalf("Go panic in the sandbox: %s", e)
	}
	return d.Frontmatter
}

func FuzzLuaPatterns(f *testing.F) {
	for _, c := range [][2]string{
		{"hello world", "(o)(%s)"}, {"a]b", "[%]]"}, {"THE (quick) fox", "%f[%a]%a+"}, {"(foo(bar))", "%b()"},
		{"abcabc", "(a)(b)%2"}, {"x", "[a"}, {"x", "%"}, {"x", "(()"}, {"aaa", ".-.-b"}, {"", "^$"}, {"a-b", "[a-]"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, s, p string) {
		if len(s) > 4096 || len(p) > 256 {
			return
		}
		smallLuaLimits(t)
		q, pq := luaQuote(s), luaQuote(p)
		for _, call := range []string{
			"string.find(" + q + ", " + pq + ")",
			"string.find(" + q + ", " + pq + ", 2)",
			"string.match(" + q + ", " + pq + ", -3)",
			"string.gsub(" + q + ", " + pq + ", \"<%0%1>\")",
			"string.gsub(" + q + ", " + pq + ", function(...) return select('#', ...) end, 3)",
			"for a, b in string.gmatch(" + q + ", " + pq + ") do end",
		} {
			assertLuaSane(t, call)
		}
	})
}

func FuzzLuaFrontmatter(f *testing.F) {
	for _, code := range []string{
		`flemma.opt.tools.auto_approve = { "$readonly" }` + "\n" + `flemma.opt.tools.auto_approve:remove("grep")`,
		`local t = {} for i = 1, 10 do t[#t + 1] = i .. "x" end x = table.concat(t, ",")`,
		`local o = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v) end}) o.a, o.b = 1, 2`,
		`function f(...) return ... end local a = f(1, 2) .. f("x") y = ("%d"):format(3)`,
		`flemma.opt.tools = { deny = { "rm" }, bash = { timeout = 5 } } x = flemma.opt.tools.deny + "a" - "b"`,
		`local s = ("x"):rep(10) s = s:gsub("x", {x = "y"}) z = s:upper():lower():reverse()`,
	} {
		f.Add(code)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if len(code) > 8192 {
			return
		}
		smallLuaLimits(t)
		assertLuaSane(t, code)
	})
}

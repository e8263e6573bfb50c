package frontmatter

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// luaRun evaluates code as a Lua frontmatter and returns the frontmatter.
func luaRun(t *testing.T, code string) *Evaluation {
	t.Helper()
	d := frontmatterDoc("lua", code)
	if d.Frontmatter == nil || len(d.Messages()) != 1 {
		t.Fatal("frontmatter or body not parsed")
	}
	return d.Frontmatter
}

// The bounded pattern functions keep Lua 5.1's semantics (lstrlib.c).
func TestLuaPatternFunctionsSemantics(t *testing.T) {
	code := `
local function eq(got, want, what)
  if got ~= want then error(what .. ": got " .. tostring(got) .. ", want " .. tostring(want)) end
end
local function pack(...) return table.concat({...}, ",") end
eq(pack(("hello world"):find("o w")), "5,7", "find")
eq(pack(("hello"):find("l+")), "3,4", "find l+")
eq(pack(("a.b"):find(".", 1, true)), "2,2", "plain find")
eq(pack(("a.b"):find("%.")), "2,2", "escaped dot")
eq(pack(("abcabc"):find("b", -3)), "5,5", "negative init")
eq(("abc"):find("^b"), nil, "anchor")
eq(pack(("abc"):find("")), "1,0", "empty pattern")
eq(pack(("abc"):find("", 10)), "4,3", "init past the end")
eq(pack(("key = val"):find("(%w+)%s*=%s*(%w+)")), "1,9,key,val", "find captures")
eq(pack(("key=val"):match("(%w+)=(%w+)")), "key,val", "match")
eq(("hello"):match(".-l"), "hel", "lazy")
eq(("hello"):match(".*l"), "hell", "greedy")
eq(("colour"):match("colou?r"), "colour", "optional")
eq(pack(("hello"):match("()ll()")), "3,5", "position captures")
eq(pack(('say "hi" now'):match('(["\'])(.-)%1')), '",hi', "back reference")
eq(("(foo(bar))baz"):match("%b()"), "(foo(bar))", "balance")
eq(("a]b"):match("[%]]"), "]", "escaped bracket")
eq(("x5y"):match("[0-9]"), "5", "range")
eq(("x-y"):match("[a%-]"), "-", "escaped dash")
eq(("abc"):match("[^ab]"), "c", "negated set")
eq(("THE (quick) fox"):gsub("%f[%a]%a+", "X"), "X (X) X", "frontier")
eq(("abc"):match("c$"), "c", "end anchor")
eq(("a$c"):match("a$c"), "a$c", "dollar inside")
eq(pack(("hello world"):gsub("o", "0")), "hell0 w0rld,2", "gsub")
eq(pack(("abc"):gsub("%w", "%0%0")), "aabbcc,3", "gsub %0")
eq(pack(("hello"):gsub("", "-")), "-h-e-l-l-o-,6", "gsub empty")
eq(pack(("abc"):gsub("b", {b = "B"})), "aBc,1", "gsub table")
eq(pack(("abc"):gsub("%w", function(c) if c == "b" then return nil end return c:upper() end)), "AbC,3", "gsub function")
eq(pack(("a b c"):gsub(" ", "_", 1)), "a_b c,1", "gsub limit")
eq(pack(("hello world"):gsub("(%w+) (%w+)", "%2 %1")), "world hello,1", "gsub captures")
eq(pack(("x"):gsub("x", "%%")), "%,1", "gsub percent")
eq(pack(("abc"):gsub("^a", "")), "bc,1", "gsub anchor")
local words = {}
for w in ("one two  three"):gmatch("%a+") do words[#words + 1] = w end
eq(table.concat(words, "|"), "one|two|three", "gmatch")
local kv = {}
for k, v in ("a=1, b=2"):gmatch("(%w+)=(%w+)") do kv[#kv + 1] = k .. v end
eq(table.concat(kv, "|"), "a1|b2", "gmatch captures")
eq(select(2, pcall(string.find, "x", "[a")):match("missing"), "missing", "malformed")
eq(select(2, pcall(string.rep, "x", 1e9)):match("too large"), "too large", "rep cap")
eq(string.format("%5.2f|%s|%d", 3.14159, "x", 42):sub(1, 7), " 3.14|x", "format")
eq(select(2, pcall(string.format, "%100d", 1)):match("too long"), "too long", "format width")
eq(table.concat({1, "a", 2}, "-"), "1-a-2", "concat")
eq(1 .. "a" .. 2.5, "1a2.5", "concat operator")
eq(#(("x"):rep(3, nil)), 3, "rep")
eq(pack(("abc"):byte(1, -1)), "97,98,99", "byte")
eq(pack(unpack({1, 2, 3})), "1,2,3", "unpack")
ok = true
`
	fm := luaRun(t, code)
	if fm.Error != "" || fm.Vars["ok"] != true {
		t.Fatalf("error %q vars %v", fm.Error, fm.Vars)
	}
}

// Rewriting table writes, constructors, functions and `..` keeps what the
// code means: metamethods, evaluation order, methods, local recursion.
func TestLuaInstrumentedCodeKeepsSemantics(t *testing.T) {
	code := `
local function eq(got, want, what)
  if got ~= want then error(what .. ": got " .. tostring(got) .. ", want " .. tostring(want)) end
end
local t = setmetatable({}, {__newindex = function(t, k, v) rawset(t, k, v * 2) end})
t.x = 2
eq(t.x, 4, "__newindex function")
local store = {}
local u = setmetatable({}, {__newindex = store})
u.y = 1
eq(rawget(u, "y"), nil, "__newindex table")
eq(store.y, 1, "__newindex table")
local a, b = {}, {}
local i = 1
i, a[i] = i + 1, 20
eq(a[1], 20, "targets evaluated first")
eq(i, 2, "multiple assignment")
a.p, b.q, i = 1, 2
eq(a.p .. "," .. b.q .. "," .. tostring(i), "1,2,nil", "adjusted values")
local obj = {n = 3}
function obj.get() return 7 end
function obj:count() return self.n end
eq(obj.get(), 7, "function field")
eq(obj:count(), 3, "method")
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
eq(fact(5), 120, "local recursion")
local mt = {__concat = function(x, y) return "C" end}
local c = setmetatable({}, mt)
eq(c .. "x", "C", "__concat")
eq("x" .. c, "C", "__concat right")
local function two() return "a", "b" end
eq("<" .. two(), "<a", "one value per operand")
local nested = {{1, {2, 3}}, k = {v = "w"}}
eq(nested[1][2][2] .. nested.k.v, "3w", "constructors")
local ok = pcall(function() local n = nil; n.x = 1 end)
eq(ok, false, "index nil")
flemma.opt.tools.auto_approve = { "$readonly" }
flemma.opt.tools.auto_approve:remove("grep")
done = true
`
	fm := luaRun(t, code)
	if fm.Error != "" || fm.Vars["done"] != true {
		t.Fatalf("error %q vars %v", fm.Error, fm.Vars)
	}
	line := strings.Count(code[:strings.Index(code, "flemma.opt")], "\n") + 1 // chunk line k is document line k
	assertOps(t, fm.Options, []OptionOp{
		{Path: "tools.auto_approve", Op: "set", Values: []any{"$readonly"}, Line: line},
		{Path: "tools.auto_approve", Op: "remove", Values: []any{"grep"}, Line: line + 1},
	})
}

// Defect: a backtracking pattern ran inside one Go call, past every limit
// (`.-.-.-.-b` on 200 bytes took 106 s). Every matcher step is counted now.
func TestLuaPatternIsBounded(t *testing.T) {
	for _, code := range []string{
		`local s = string.rep("a", 3000) string.find(s, ".-.-.-.-b")`,
		`local s = string.rep("a", 3000) for i = 1, 100 do pcall(string.match, s, ".-.-.-.-b") end`,
		`local s = string.rep("a", 3000) s:gsub(".-.-.-b", "x")`,
		`for w in string.rep("a", 3000):gmatch(".-.-.-b") do end`,
		`local s = string.rep("(", 6000) s:find(string.rep("%b()", 50))`,
	} {
		start := time.Now()
		fm := luaRun(t, code)
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("%s took %v", code, el)
		}
		if !strings.Contains(fm.Error, "ran too long") {
			t.Fatalf("%s: error %q", code, fm.Error)
		}
	}
}

// Defect: one call could ask for gigabytes (table.concat of 160 x 16 MB,
// gsub, string.rep, a long `..` chain). Sizes are checked before the bytes
// are copied, and what a script creates is counted.
func TestLuaAllocationIsBounded(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{`local s = string.rep("x", 16*1024*1024) local t = {} for i = 1, 160 do t[i] = s end local r = table.concat(t)`, "too large"},
		{`local s = string.rep("x", 1000000) local r = s:gsub("x", string.rep("y", 100))`, "too large"},
		{`local s = string.rep("x", 8000000) local r = s .. s .. s .. s .. s`, "too large"},
		{`local s = string.rep("%99s", 200000) local r = string.format(s)`, "too large"},
		{`local s = string.rep("x", 10000000) local t = {} for i = 1, 100 do t[i] = s .. i end`, "too much memory"},
		{`local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep("x", 1000) .. i end`, "too much memory"},
		{`local t = {} while true do t[#t + 1] = {1, 2, 3, 4, 5, 6, 7, 8} end`, "too much memory"},
		{`local f = nil while true do local g = f f = function() return g end end`, "too much memory"},
		{`local t = {} for i = 1, 1e7 do rawset(t, i, i) end`, "too much memory"},
		{`local t = {} for i = 1, 1e7 do table.insert(t, i) end`, "the frontmatter"}, // either limit
		{`local s = "x" while true do s = s .. s end`, "too large"},
		{`local s = string.rep("x", 16000000) local t = {s:byte(1, -1)}`, "string slice too long"},
		{`local t = {} for i = 1, 200000 do t[i] = 65 end local s = string.char(unpack(t))`, "too many results"},
		{`local p = flemma.opt while true do p = p.abcdefgh end`, "too much memory"},
		{`local x = flemma.opt.a while true do x = x + "v" end`, "too much memory"},
		{`while true do flemma.opt.a:append("v") end`, "too much memory"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fm := luaRun(t, c.code)
		runtime.ReadMemStats(&after)
		if !strings.Contains(fm.Error, c.want) {
			t.Errorf("%s: error %q, want %q", c.code, fm.Error, c.want)
		}
		// The budget is 32 MB of counted objects plus 16 MB strings; the
		// process's own allocations stay within a small multiple of that.
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 400<<20 {
			t.Errorf("%s: allocated %d MB", c.code, grew>>20)
		}
	}
}

var luaTestSink atomic.Value

// Defect: the memory limit sampled the whole process, so a legitimate
// frontmatter failed ("used too much memory", no options) while another
// goroutine allocated, and its removals silently disappeared. The limits
// count the script's own work now.
func TestLuaLimitsIgnoreOtherGoroutines(t *testing.T) {
	code := "local x = 0\nfor i = 1, 600000 do x = x + i end\nflemma.opt.tools.auto_approve = { \"$readonly\" }"
	stop := make(chan struct{})
	done := make(chan struct{})
	var allocated atomic.Int64
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				luaTestSink.Store(strings.Repeat("y", 8<<20)) // another document being parsed
				allocated.Add(8 << 20)
			}
		}
	}()
	for allocated.Load() < 64<<20 {
		runtime.Gosched()
	}
	fm := luaRun(t, code)
	close(stop)
	<-done
	if fm.Error != "" || len(fm.Options) != 1 {
		t.Fatalf("with %d MB allocated elsewhere: error %q, options %v", allocated.Load()>>20, fm.Error, fm.Options)
	}
}

// Defect: deep nesting overflowed the Go stack in gopher-lua's compiler.
// The tree's depth is checked first; the source size is capped.
func TestLuaDeepNestingIsAnError(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{"x = " + strings.Repeat("{", 100000) + strings.Repeat("}", 100000), "nested too deeply"},
		{"x = 1" + strings.Repeat(" + 1", 50000), "nested too deeply"},
		{"x = 'a'" + strings.Repeat(" .. 'a'", 30000), "nested too deeply"},
		{"x = " + strings.Repeat("not ", 60000) + "true", "nested too deeply"},
		{strings.Repeat("if x then ", 10000) + strings.Repeat("end ", 10000), "nested too deeply"},
		{strings.Repeat("function f() ", 10000) + strings.Repeat("end ", 10000), "nested too deeply"},
		{"x = " + strings.Repeat("{", 1000000), "too long"},
	} {
		fm := luaRun(t, c.code)
		if !strings.Contains(fm.Error, c.want) {
			t.Errorf("%.40s…: error %q, want %q", c.code, fm.Error, c.want)
		}
	}
	// Parentheses leave no trace in the tree: 100,000 of them are fine.
	if fm := luaRun(t, "x = "+strings.Repeat("(", 100000)+"1"+strings.Repeat(")", 100000)); fm.Error != "" || fm.Vars["x"] != 1.0 {
		t.Fatalf("parentheses: %q %v", fm.Error, fm.Vars)
	}
	// Nesting a frontmatter really uses is fine.
	if fm := luaRun(t, "x = "+strings.Repeat("{", 50)+strings.Repeat("}", 50)); fm.Error != "" {
		t.Fatalf("50 levels: %q", fm.Error)
	}
}

// Whenever evaluation fails, Frontmatter.Error says so (a consumer must
// not read the options recorded so far as the whole intent) and the same
// text is a diagnostic.
func TestFrontmatterErrorIsExposed(t *testing.T) {
	d := frontmatterDoc("lua", "flemma.opt.tools.auto_approve = { \"$readonly\" }\nwhile true do end\nflemma.opt.tools.deny = { \"bash\" }")
	fm := d.Frontmatter
	if !strings.Contains(fm.Error, "ran too long") || len(fm.Options) != 1 {
		t.Fatalf("error %q options %v", fm.Error, fm.Options)
	}
	if dg := fmDiag(t, d); dg.Message != fm.Error || dg.Severity != chatdoc.SeverityError {
		t.Fatalf("diagnostic %+v", dg)
	}
	for lang, code := range map[string]string{"json": `{"flemma": [`, "yaml": "a: 1"} {
		if fm := frontmatterDoc(lang, code).Frontmatter; fm.Error == "" {
			t.Errorf("%s: no error", lang)
		}
	}
	if fm := frontmatterDoc("lua", `flemma.opt.model = "x"`).Frontmatter; fm.Error != "" {
		t.Errorf("clean frontmatter has error %q", fm.Error)
	}
}

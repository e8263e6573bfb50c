package frontmatter

import (
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

func frontmatterDoc(lang, code string) evaluated {
	return parse("```" + lang + "\n" + code + "\n```\n@You:\nhi\n")
}

func fmDiag(t *testing.T, d evaluated) chatdoc.Diagnostic {
	t.Helper()
	for _, dg := range d.Diagnostics() {
		if dg.Code == chatdoc.CodeFrontmatterError || dg.Code == chatdoc.CodeFrontmatterLanguage {
			return dg
		}
	}
	t.Fatalf("no frontmatter diagnostic in %v", d.Diagnostics())
	return chatdoc.Diagnostic{}
}

func TestLuaFrontmatterOptions(t *testing.T) {
	d := frontmatterDoc("lua", strings.Join([]string{
		`flemma.opt.tools.auto_approve:append({"a", "b"})`,
		`flemma.opt.tools.auto_approve = flemma.opt.tools.auto_approve - "c" + "d"`,
		`local o = flemma.opt`,
		`o.tools.bash = { timeout = 60, cwd = "src" }`,
		`flemma.opt.model = "claude"`,
		`flemma.opt.tools.deny:prepend("rm")`,
		`flemma.opt.tools.deny:set({})`,
		`x = { list = { 1, 2 }, name = "n" }`,
		`local hidden = 1`,
	}, "\n"))
	want := []OptionOp{
		{Path: "tools.auto_approve", Op: "append", Values: []any{"a", "b"}, Line: 1},
		{Path: "tools.auto_approve", Op: "remove", Values: []any{"c"}, Line: 2},
		{Path: "tools.auto_approve", Op: "append", Values: []any{"d"}, Line: 2},
		{Path: "tools.bash.cwd", Op: "set", Values: []any{"src"}, Line: 4},
		{Path: "tools.bash.timeout", Op: "set", Values: []any{60.0}, Line: 4},
		{Path: "model", Op: "set", Values: []any{"claude"}, Line: 5},
		{Path: "tools.deny", Op: "prepend", Values: []any{"rm"}, Line: 6},
		{Path: "tools.deny", Op: "set", Values: []any{}, Line: 7},
	}
	assertOps(t, d.Frontmatter.Options, want)
	if len(d.Diagnostics()) != 0 {
		t.Fatalf("diagnostics %v", d.Diagnostics())
	}
	x, _ := d.Frontmatter.Vars["x"].(map[string]any)
	if x["name"] != "n" || len(x["list"].([]any)) != 2 || len(d.Frontmatter.Vars) != 1 {
		t.Fatalf("vars %#v", d.Frontmatter.Vars)
	}
}

func TestLuaFrontmatterSandbox(t *testing.T) {
	tests := []struct {
		name, code, want string
		line             int
	}{
		{"os is undefined", "flemma.opt.x = 1\nos.execute('touch /tmp/chatls-pwned')", "attempt to index", 2},
		{"io is undefined", "io.open('/etc/passwd')", "attempt to index", 1},
		{"require is undefined", "require('os')", "attempt to call", 1},
		{"load is undefined", "load('return 1')()", "attempt to call", 1},
		{"dofile is undefined", "dofile('/etc/passwd')", "attempt to call", 1},
		{"print is undefined (stdout is the LSP channel)", "print('x')", "attempt to call", 1},
		{"endless loop", "while true do end", "ran too long", 0},
		{"memory bomb", "local t = {}\nwhile true do t[#t+1] = string.rep('x', 1e6) end", "too much memory", 0},
		{"doubling string", "local s = 'x'\nwhile true do s = s .. s end", "", 0},
		{"huge rep", "local s = string.rep('x', 1e12)", "too large", 1},
		{"deep recursion", "local function f() return 1 + f() end\nf()", "", 0},
		{"syntax error", "flemma.opt.x = = 1", "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			d := frontmatterDoc("lua", tt.code)
			if el := time.Since(start); el > 2*time.Second {
				t.Fatalf("took %v", el)
			}
			dg := fmDiag(t, d)
			if dg.Severity != chatdoc.SeverityError || !strings.Contains(dg.Message, tt.want) || !strings.HasPrefix(dg.Message, "Frontmatter error: ") {
				t.Fatalf("diagnostic %+v", dg)
			}
			if tt.line > 0 && d.Lines.LineOf(dg.Span.Start) != tt.line {
				t.Fatalf("diagnostic on line %d, want %d: %+v", d.Lines.LineOf(dg.Span.Start), tt.line, dg)
			}
			if len(d.Messages()) != 1 {
				t.Fatal("the document after the frontmatter was not parsed")
			}
		})
	}
}

func TestJSONFrontmatter(t *testing.T) {
	d := frontmatterDoc("json", `{
  "chatls": {
    "tools": {
      "auto_approve": { "$remove": ["x"], "$prepend": "p", "$append": ["a", "b"], "$set": ["$readonly"] },
      "deny": ["rm"],
      "bash": { "timeout": 30 }
    },
    "autopilot": false
  },
  "recipient": { "name": "team" }
}`)
	want := []OptionOp{
		{Path: "tools.auto_approve", Op: "set", Values: []any{"$readonly"}, Line: 4},
		{Path: "tools.auto_approve", Op: "append", Values: []any{"a", "b"}, Line: 4},
		{Path: "tools.auto_approve", Op: "prepend", Values: []any{"p"}, Line: 4},
		{Path: "tools.auto_approve", Op: "remove", Values: []any{"x"}, Line: 4},
		{Path: "tools.deny", Op: "set", Values: []any{"rm"}, Line: 5},
		{Path: "tools.bash.timeout", Op: "set", Values: []any{30.0}, Line: 6},
		{Path: "autopilot", Op: "set", Values: []any{false}, Line: 8},
	}
	assertOps(t, d.Frontmatter.Options, want)
	if d.Frontmatter.Vars["recipient"].(map[string]any)["name"] != "team" || len(d.Diagnostics()) != 0 {
		t.Fatalf("vars %v diags %v", d.Frontmatter.Vars, d.Diagnostics())
	}
}

// JSON frontmatter that is not an object is a warning (as Flemma): the
// document works without variables.
func TestJSONFrontmatterNotObject(t *testing.T) {
	for code, kind := range map[string]string{"[1, 2]": "array", `"x"`: "string", "3.5": "number", "true": "boolean", "null": "null"} {
		d := frontmatterDoc("json", code)
		dg := fmDiag(t, d)
		if dg.Severity != chatdoc.SeverityWarning || dg.Message != "Frontmatter must be an object, got "+kind || len(d.Messages()) != 1 {
			t.Fatalf("%s: %+v", code, dg)
		}
	}
}

func TestJSONFrontmatterErrors(t *testing.T) {
	for name, code := range map[string]string{
		"syntax":           "{\n  \"flemma\": {\n    \"a\": [1,\n  }\n}",
		"unknown operator": `{"flemma": {"tools": {"auto_approve": {"$add": "x"}}}}`,
		"nested list":      `{"flemma": {"tools": {"auto_approve": [["x"]]}}}`,
		"trailing data":    `{} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			if dg := fmDiag(t, frontmatterDoc("json", code)); dg.Severity != chatdoc.SeverityError {
				t.Fatalf("%+v", dg)
			}
		})
	}
}

func TestFrontmatterShapes(t *testing.T) {
	d := frontmatterDoc("yaml", "a: 1")
	if dg := fmDiag(t, d); dg.Message != "Unsupported frontmatter language: yaml" || d.Document.Frontmatter.Language != "yaml" {
		t.Fatalf("%+v", dg)
	}
	// Unclosed: no frontmatter; the messages are still read (as Flemma).
	if d := parse("```lua\nflemma.opt.x = 1\n@You:\nhi\n"); d.Frontmatter != nil || len(d.Messages()) != 1 {
		t.Fatalf("unclosed frontmatter read: %+v", d.Frontmatter)
	}
	// Not on line 1: an ordinary fence before the first marker.
	if d := parse("\n```lua\nx = 1\n```\n@You:\nhi\n"); d.Frontmatter != nil || len(d.Messages()) != 1 {
		t.Fatal("frontmatter accepted after line 1")
	}
	// CRLF frontmatter.
	if d := parse("```lua\r\nflemma.opt.x = 1\r\n```\r\n@You:\r\n"); d.Frontmatter == nil || len(d.Frontmatter.Options) != 1 || len(d.Messages()) != 1 {
		t.Fatalf("CRLF frontmatter: %+v", d.Frontmatter)
	}
}

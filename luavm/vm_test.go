package luavm

import (
	"strings"
	"testing"
)

// Templates see the frontmatter's globals: Run then Eval in one VM.
func TestEvalSeesEarlierGlobals(t *testing.T) {
	vm := New("the template")
	defer vm.Close()
	if err := vm.Run("frontmatter", `name = "Ada"; items = {"a", "b"}; function greet(n) return "hi " .. n end`); err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string]string{
		`name`:                     "Ada",
		`greet(name)`:              "hi Ada",
		`#items`:                   "2",
		`table.concat(items, "+")`: "a+b",
		`1 + 1`:                    "2",
		`nil`:                      "nil",
	} {
		got, err := vm.Eval("template", expr)
		if err != nil || got != want {
			t.Errorf("Eval(%q) = %q, %v; want %q", expr, got, err, want)
		}
	}
	vars := vm.Vars()
	if vars["name"] != "Ada" || len(vars["items"].([]any)) != 2 {
		t.Errorf("vars %v", vars)
	}
	if _, ok := vars["greet"]; ok {
		t.Error("a function is not a template variable")
	}
	if _, ok := vars["\x00result"]; ok {
		t.Error("Eval left its scratch global behind")
	}
}

// SetVars gives templates a JSON frontmatter's variables.
func TestSetVars(t *testing.T) {
	vm := New("the template")
	defer vm.Close()
	vm.SetVars(map[string]any{"user": map[string]any{"name": "Lin", "tags": []any{"x", true, 2.5}}})
	got, err := vm.Eval("template", `user.name .. ":" .. user.tags[1] .. tostring(user.tags[2]) .. user.tags[3]`)
	if err != nil || got != "Lin:xtrue2.5" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// Errors name the line and the code; limits name what ran.
func TestErrorsAndLimits(t *testing.T) {
	vm := New("the template")
	defer vm.Close()
	err := vm.Run("template", "local x = 1\nerror('boom')")
	if line, msg := ErrorLine("template", err); line != 2 || msg != "boom" {
		t.Errorf("ErrorLine = %d %q (%v)", line, msg, err)
	}
	if _, err := vm.Eval("template", "undefined_fn()"); err == nil {
		t.Error("calling nil must fail")
	}
	if _, err := vm.Eval("template", "os.execute('id')"); err == nil {
		t.Error("os must not exist")
	}
	if _, err := vm.Eval("template", "io.open('/etc/passwd')"); err == nil {
		t.Error("io must not exist")
	}
	defer SetLimits(100_000, 1<<20)()
	slow := New("the template")
	defer slow.Close()
	if err := slow.Run("template", "while true do end"); err == nil || !strings.Contains(err.Error(), "the template ran too long") {
		t.Errorf("endless loop: %v", err)
	}
	// Once over budget, the VM stays over budget: nothing more runs.
	if _, err := slow.Eval("template", "1"); err == nil {
		t.Error("a VM over its budget ran more code")
	}
	if err := New("x").Run("c", strings.Repeat(" ", MaxSource+1)); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("oversized source: %v", err)
	}
}

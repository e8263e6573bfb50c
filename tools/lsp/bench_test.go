package lsp

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/chatls/chatls/tools"
)

// BenchmarkDefinition: the definition tool on a warm gopls, and gopls's
// own `gopls definition` CLI on the same position (a cold process each
// time: what a model would get by running it in bash).
func BenchmarkDefinition(b *testing.B) {
	if _, err := exec.LookPath("gopls"); err != nil {
		b.Skip("gopls is not on PATH")
	}
	dir := b.TempDir()
	testfs.Write(b, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.22\n")
	testfs.Write(b, filepath.Join(dir, "lib.go"), "package m\n\n// Greet says hello.\nfunc Greet(name string) string { return \"hi \" + name }\n")
	testfs.Write(b, filepath.Join(dir, "main.go"), "package m\n\nfunc use() string {\n\treturn Greet(\"a\")\n}\n")
	pool := NewPool()
	defer pool.Close()
	r := tools.NewRunner(tools.NewRegistry(Tools(pool)))
	env := tools.Env{Dir: dir, DefaultTimeout: 60}
	input := map[string]any{"path": "main.go", "line": 4.0, "column": 9.0}
	b.Run("tool-warm-gopls", func(b *testing.B) {
		r.Run(context.Background(), tools.Call{ID: "w", Name: "definition", Input: input}, env) // warm up
		for b.Loop() {
			res := r.Run(context.Background(), tools.Call{ID: "d", Name: "definition", Input: input}, env)
			if res.IsError || !strings.HasPrefix(res.Text, "lib.go:4:6:") {
				b.Fatal(res.Text)
			}
		}
	})
	b.Run("gopls-definition-cli", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("gopls", "definition", filepath.Join(dir, "main.go")+":4:9")
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "lib.go:4:6") {
				b.Fatalf("%v %s", err, out)
			}
		}
	})
}

package tools

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// BenchmarkSandboxScan is the masking scan of that workspace and the home
// directory: first (cold) and with the cache checked (warm).
func BenchmarkSandboxScan(b *testing.B) {
	env := testEnv(b)
	for i := range 500 {
		testfs.Write(b, filepath.Join(env.Dir, fmt.Sprintf("pkg%d", i%20), fmt.Sprintf("f%d.go", i)), "package x\n")
	}
	home := b.TempDir()
	testfs.Write(b, filepath.Join(home, ".ssh", "id_rsa"), "k")
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			InvalidateSandboxScans()
			planSandboxView([]string{env.Dir}, home)
		}
	})
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			planSandboxView([]string{env.Dir}, home)
		}
	})
}

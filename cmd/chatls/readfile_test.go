package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/chatdoc/chatgen"
)

// readWhole reads exactly what os.ReadFile does: large files (in two
// halves), small and empty ones, and it fails as os.ReadFile does.
func TestReadWholeReadsWhatReadFileDoes(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{0, 1, 4096, parallelReadMin - 1, parallelReadMin, 3*parallelReadMin + 7} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		name := filepath.Join(dir, "f")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readWhole(name)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: got %d bytes (%v), not the file's", size, len(got), err)
		}
	}
	if _, err := readWhole(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := readWhole(dir); err == nil {
		t.Error("a directory was read")
	}
}

// BenchmarkReadLargeFile reads the generated 10 MB document as check does,
// with the collector off as in runCheck.
func BenchmarkReadLargeFile(b *testing.B) {
	name := filepath.Join(b.TempDir(), "big.chat")
	if err := os.WriteFile(name, []byte(chatgen.Generate(10<<20, 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, r := range []struct {
		name string
		read func(string) ([]byte, error)
	}{{"os.ReadFile", os.ReadFile}, {"readWhole", readWhole}} {
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := r.read(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package journal

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkOpenWithHistory is what every chatls start pays for the
// journal a user's earlier calls left: 1,000 calls (a start and a finish
// each, the finish holding a 4 KB result), read by Open.
func BenchmarkOpenWithHistory(b *testing.B) {
	dir := b.TempDir()
	j, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	result := strings.Repeat("ok \"quoted\" line\n", 4096/18)
	for i := range 1000 {
		id := fmt.Sprintf("toolu_%04d", i)
		if err := j.Start("/w/a.chat", id); err != nil {
			b.Fatal(err)
		}
		if err := j.Finish("/w/a.chat", id, result, false); err != nil {
			b.Fatal(err)
		}
	}
	j.Close()
	b.ResetTimer()
	for b.Loop() {
		j, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if j.State("/w/a.chat", "toolu_0999") != Finished {
			b.Fatal("the last call is not known as finished")
		}
		j.Close()
	}
}

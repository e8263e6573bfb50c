package frontmatter

import (
	"fmt"
	"sync"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

func TestEvaluateIsMemoisedByCode(t *testing.T) {
	doc := func(code string) *chatdoc.Frontmatter {
		return chatdoc.Parse("```lua\n" + code + "\n```\n@You:\nhi\n").Frontmatter
	}
	a := Evaluate(doc(`flemma.opt.model = "m1"`))
	if b := Evaluate(doc(`flemma.opt.model = "m1"`)); b != a {
		t.Fatal("the same code was evaluated again")
	}
	if c := Evaluate(doc(`flemma.opt.model = "m2"`)); c == a || c.Options[0].Values[0] != "m2" {
		t.Fatalf("other code got %+v", c.Options)
	}
	// The same code after a longer opener starts elsewhere: its own entry.
	moved := chatdoc.Parse("```lua  \nflemma.opt.model = \"m1\"\n```\n@You:\nhi\n").Frontmatter
	if Evaluate(moved) == a {
		t.Fatal("an evaluation reused for code at another offset")
	}
	if Evaluate(nil) == nil || len(Evaluate(nil).Options) != 0 {
		t.Fatal("no frontmatter: want an empty evaluation")
	}
}

func TestEvaluateMemoIsBoundedAndConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 4 * memoSize {
		wg.Go(func() {
			fm := chatdoc.Parse(fmt.Sprintf("```lua\nx = %d\n```\n@You:\n", i%(2*memoSize))).Frontmatter
			if ev := Evaluate(fm); ev.Vars["x"] != float64(i%(2*memoSize)) {
				t.Errorf("x = %v, want %d", ev.Vars["x"], i%(2*memoSize))
			}
		})
	}
	wg.Wait()
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if len(memo.entries) > memoSize || len(memo.order) != len(memo.entries) {
		t.Fatalf("%d entries, %d in order (at most %d)", len(memo.entries), len(memo.order), memoSize)
	}
}

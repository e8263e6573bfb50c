package chatdoc

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ToolUseIDs is the document's own index: the IDs of its tool uses, shared
// (not copied) by a later snapshot whose IDs are the same.
func TestToolUseIDsIsTheSharedIndex(t *testing.T) {
	text := "@Assistant:\n**Tool Use:** `bash` (`a`)\n```json\n{}\n```\n**Tool Use:** `bash` (`b`)\n```json\n{}\n```\n" +
		"**Tool Use:** `bash` (`a`)\n```json\n{}\n```\n\n@You:\n**Tool Result:** `c`\n```\nx\n```\n"
	d := Parse(text)
	ids := d.ToolUseIDs()
	if !ids.Has("a") || !ids.Has("b") || ids.Has("c") || ids.ids.size() != 2 {
		t.Fatalf("IDs a, b (a twice) and a result c: Has(a) %v Has(b) %v Has(c) %v, %d IDs", ids.Has("a"), ids.Has("b"), ids.Has("c"), ids.ids.size())
	}
	at := strings.LastIndex(text, "x\n")
	typed := d.Replace(Span{at, at}, "more ")
	if !strings.Contains(typed.Text(), "more x") {
		t.Fatalf("edit landed elsewhere: %q", typed.Text())
	}
	if &typed.ToolUseIDs().ids.ids[0] != &ids.ids.ids[0] {
		t.Fatal("an edit that leaves the IDs alone built a new index")
	}
	renamed := d.Replace(Span{strings.Index(text, "(`b`)") + 2, strings.Index(text, "(`b`)") + 3}, "z")
	if got := renamed.ToolUseIDs(); !got.Has("z") || got.Has("b") || !ids.Has("b") {
		t.Fatalf("after renaming b to z: Has(z) %v Has(b) %v; the first snapshot's Has(b) %v", got.Has("z"), got.Has("b"), ids.Has("b"))
	}
}

// size is how many distinct IDs the table holds.
func (t idTable) size() int { return len(t.first) }

// The ID table: the first position of every ID, the repeats in order, and
// no position for an ID it lacks, over lists with many repeats.
func TestIDTableAgreesWithAMap(t *testing.T) {
	for n := 0; n < 300; n++ {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("toolu_%d", (i*7919)%(n/2+1)) // about half repeat
		}
		table, repeats := newIDTable(ids)
		first := map[string]int{}
		var wantRepeats []int
		for i, id := range ids {
			if _, seen := first[id]; seen {
				wantRepeats = append(wantRepeats, i)
			} else {
				first[id] = i
			}
		}
		if !slices.Equal(repeats, wantRepeats) || table.size() != len(first) {
			t.Fatalf("%d IDs: repeats %v, want %v; %d distinct, want %d", n, repeats, wantRepeats, table.size(), len(first))
		}
		for id, want := range first {
			if got, ok := table.index(id); !ok || got != want {
				t.Fatalf("%d IDs: %s at %d (%v), want %d", n, id, got, ok, want)
			}
		}
		for _, absent := range []string{"", "toolu_", "toolu_-1", fmt.Sprint("toolu_", n)} {
			if i, ok := table.index(absent); ok {
				t.Fatalf("%d IDs: %q found at %d", n, absent, i)
			}
		}
	}
}

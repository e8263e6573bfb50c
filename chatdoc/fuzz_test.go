package chatdoc

import (
	"sort"
	"testing"
)

func addCorpusSeeds(f *testing.F, add func(text string)) {
	for _, text := range corpusTexts(f) {
		add(text)
	}
	for _, s := range editFragments {
		add(s)
	}
	for _, s := range flemmaShapes {
		add(s)
	}
}

func FuzzParse(f *testing.F) {
	addCorpusSeeds(f, func(text string) { f.Add(text) })
	f.Fuzz(func(t *testing.T, text string) {
		d := Parse(text)
		if d.Text() != text || ApplyEdits(d.Text(), nil) != text {
			t.Fatal("parse then print is not byte-identical")
		}
		checkInvariants(t, d)
		assertValidJSONOutput(t, d)
		assertSameDoc(t, parseWithSplit(text, true), d) // two halves at once = one pass
	})
}

func FuzzIncremental(f *testing.F) {
	addCorpusSeeds(f, func(text string) {
		f.Add(text, uint16(len(text)/2), uint16(3), "@You:\n")
		f.Add(text, uint16(len(text)/3), uint16(0), "```\n")
	})
	f.Fuzz(func(t *testing.T, text string, at, length uint16, ins string) {
		check := func() {
			d := Parse(text)
			start := min(int(at), len(text))
			span := Span{start, min(len(text), start+int(length))}
			got := d.Replace(span, ins)
			if diff := docDiff(got, Parse(got.Text())); diff != "" {
				t.Fatal(diff)
			}
			// The same change as an LSP range, through Apply, then a second
			// edit on the updated snapshot.
			r := d.Range(span, UTF16)
			viaApply := d.Apply([]Change{{Range: &r, Text: ins}}, UTF16)
			if diff := docDiff(viaApply, Parse(viaApply.Text())); diff != "" {
				t.Fatal(diff)
			}
			again := viaApply.Replace(Span{span.End, span.End + int(length)%7}, ins)
			if diff := docDiff(again, Parse(again.Text())); diff != "" {
				t.Fatal(diff)
			}
		}
		check()
		withTinyPieces(check)
	})
}

// checkInvariants: every span inside the text and well formed; messages
// contiguous and in order; lists and diagnostics sorted.
func checkInvariants(t *testing.T, d *Document) {
	t.Helper()
	n := len(d.Text())
	ok := func(s Span, what string) {
		if s.Start < 0 || s.End < s.Start || s.End > n {
			t.Fatalf("%s span %v out of range (len %d)", what, s, n)
		}
	}
	prevEnd := -1
	for i, m := range d.Messages() {
		ok(m.Span, "message")
		ok(m.MarkerSpan, "marker")
		if prevEnd >= 0 && m.Span.Start != prevEnd {
			t.Fatalf("message %d starts at %d, previous ends at %d", i, m.Span.Start, prevEnd)
		}
		prevEnd = m.Span.End
		for _, f := range m.Fences {
			ok(f.Span, "fence")
			ok(f.ContentSpan, "fence content")
			if f.Span.Start < m.Span.Start || f.Span.End > m.Span.End {
				t.Fatalf("fence %v outside message %v", f.Span, m.Span)
			}
		}
		for _, u := range m.ToolUses {
			ok(u.Span, "tool use")
			ok(u.IDSpan(), "tool use id")
			if u.Message != i || d.Text()[u.IDSpan().Start:u.IDSpan().End] != u.ID {
				t.Fatalf("tool use %q: message %d id span %v", u.ID, u.Message, u.IDSpan())
			}
		}
		for _, r := range m.ToolResults {
			ok(r.Span, "tool result")
			ok(r.StatusSpan(), "status")
			if r.Message != i || d.Text()[r.IDSpan().Start:r.IDSpan().End] != r.ID {
				t.Fatalf("tool result %q: message %d", r.ID, r.Message)
			}
		}
	}
	if len(d.Messages()) > 0 && prevEnd != n {
		t.Fatalf("last message ends at %d, not %d", prevEnd, n)
	}
	if !sort.SliceIsSorted(d.Diagnostics(), func(i, j int) bool { return d.Diagnostics()[i].Span.Start < d.Diagnostics()[j].Span.Start }) {
		t.Fatal("diagnostics not sorted")
	}
	for _, dg := range d.Diagnostics() {
		ok(dg.Span, "diagnostic "+dg.Code)
	}
	if !sort.SliceIsSorted(d.ToolUses(), func(i, j int) bool { return d.ToolUses()[i].Span.Start < d.ToolUses()[j].Span.Start }) {
		t.Fatal("tool uses not sorted")
	}
}

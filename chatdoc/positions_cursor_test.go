package chatdoc

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A cursor answers exactly what the index does, whatever order the offsets
// come in: forwards, backwards, jumping across chunks and pieces, inside
// "\r\n" and inside multi-byte characters, in every encoding.
func TestLineCursorAgreesWithIndex(t *testing.T) {
	var b strings.Builder
	rng := rand.New(rand.NewPCG(9, 10))
	atoms := []string{"a", "bc ", "\n", "\r\n", "\r", "é", "😀", "日本", "\xff", "@You:\n", "```\n"}
	for b.Len() < 200_000 {
		b.WriteString(atoms[rng.IntN(len(atoms))])
	}
	text := b.String()
	withTinyPieces(func() {
		doc := Parse(text)
		for _, d := range []*Document{doc, doc.Replace(Span{Start: 1000, End: 1000}, "x\r\n😀"), Parse(text[:1])} {
			c := d.Lines.Cursor()
			offset := 0
			for i := range 20_000 {
				switch i % 7 {
				case 0: // anywhere, even out of range
					offset = rng.IntN(d.Len()+20) - 10
				case 1: // back a little
					offset -= rng.IntN(50)
				default: // forwards, as a walk over nodes
					offset += rng.IntN(40)
				}
				for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
					if got, want := c.Position(offset, enc), d.Lines.Position(offset, enc); got != want {
						t.Fatalf("offset %d enc %d: cursor %+v, index %+v", offset, enc, got, want)
					}
				}
				if got, want := c.LineOf(offset), d.Lines.LineOf(offset); got != want {
					t.Fatalf("offset %d: cursor line %d, index line %d", offset, got, want)
				}
			}
		}
	})
}

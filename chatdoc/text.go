package chatdoc

import (
	"iter"
	"sort"
	"strings"
	"sync"
	"unsafe"
)

// A snapshot's text is a list of immutable pieces (after Parse: substrings of
// the parsed string, no copy). An edit rebuilds the one piece it touches and
// copies the piece headers, instead of copying the whole document; Text()
// joins the pieces once, on demand.

// Variables only so that tests can make pieces tiny.
var (
	pieceTarget = 16 << 10 // pieces are cut after the first newline past this size
	pieceMax    = 2 * pieceTarget
	pieceMin    = pieceTarget / 4 // smaller edited pieces are merged with a neighbour
)

type piece struct {
	s     string
	start int // absolute offset of s
}

// pieceText is immutable; updated copies share unchanged pieces.
type pieceText struct {
	pieces []piece // non-empty strings, contiguous from 0
	n      int
}

func newPieceText(s string) *pieceText {
	return &pieceText{pieces: appendPieces(nil, s, 0), n: len(s)}
}

// appendPieces cuts s (which starts at base) into pieces, preferably at line
// starts so that a line rarely spans two pieces.
func appendPieces(dst []piece, s string, base int) []piece {
	for len(s) > pieceMax {
		cut := pieceTarget
		if i := strings.IndexByte(s[pieceTarget:pieceMax], '\n'); i >= 0 {
			cut += i + 1
		}
		dst = append(dst, piece{s[:cut], base})
		s, base = s[cut:], base+cut
	}
	if s != "" {
		dst = append(dst, piece{s, base})
	}
	return dst
}

// find is the index of the piece holding offset; the last piece for n.
func (t *pieceText) find(offset int) int {
	i := sort.Search(len(t.pieces), func(i int) bool { return t.pieces[i].start > offset }) - 1
	return max(i, 0)
}

// slice returns text[a:b] (0 <= a <= b <= n); a substring of one piece
// unless the range spans pieces.
func (t *pieceText) slice(a, b int) string {
	if a >= b {
		return ""
	}
	i := t.find(a)
	if p := t.pieces[i]; b <= p.start+len(p.s) {
		return p.s[a-p.start : b-p.start]
	}
	var sb strings.Builder
	sb.Grow(b - a)
	for s := range t.parts(a, b) {
		sb.WriteString(s)
	}
	return sb.String()
}

// copyOf is slice(a, b) in memory of its own. The window scanner reads
// through it, and the nodes of the messages it parses keep substrings of
// it (roles, IDs, names, inputs) for as long as the messages live. A
// substring of a piece would keep the whole piece (16–32 KB) alive instead,
// and every message an answer appends would pin one more version of the
// document's last piece: memory growing with each answer streamed.
func (t *pieceText) copyOf(a, b int) string {
	if a >= b {
		return ""
	}
	i := t.find(a)
	if p := t.pieces[i]; b <= p.start+len(p.s) {
		return strings.Clone(p.s[a-p.start : b-p.start])
	}
	return t.slice(a, b) // spanning pieces: already a string of its own
}

// parts yields text[a:b) piece by piece.
func (t *pieceText) parts(a, b int) iter.Seq[string] {
	return func(yield func(string) bool) {
		if a >= b {
			return
		}
		for i := t.find(a); i < len(t.pieces) && a < b; i++ {
			p := t.pieces[i]
			hi := min(b-p.start, len(p.s))
			if !yield(p.s[a-p.start : hi]) {
				return
			}
			a = p.start + hi
		}
	}
}

func (t *pieceText) byteAt(offset int) byte {
	p := t.pieces[t.find(offset)]
	return p.s[offset-p.start]
}

func (t *pieceText) String() string {
	if len(t.pieces) == 1 {
		return t.pieces[0].s
	}
	var sb strings.Builder
	sb.Grow(t.n)
	for _, p := range t.pieces {
		sb.WriteString(p.s)
	}
	return sb.String()
}

// replace returns the text with [start, end) replaced by ins. Only the
// pieces the range touches are rebuilt (plus a neighbour to keep lines
// whole and pieces from becoming tiny); later pieces are shifted headers.
func (t *pieceText) replace(start, end int, ins string) *pieceText {
	if len(t.pieces) == 0 {
		return newPieceText(ins)
	}
	i, k := t.find(start), t.find(max(start, end-1))
	first, last := t.pieces[i], t.pieces[k]
	region := first.s[:start-first.start] + ins + last.s[end-last.start:]
	for k+1 < len(t.pieces) && (len(region) < pieceMin || len(region) <= pieceMax && !strings.HasSuffix(region, "\n")) {
		k++
		region += t.pieces[k].s
	}
	for i > 0 && len(region) < pieceMin {
		i--
		region = t.pieces[i].s + region
	}
	base := t.pieces[i].start
	delta := len(ins) - (end - start)
	out := make([]piece, i, len(t.pieces)+2)
	copy(out, t.pieces[:i])
	out = appendPieces(out, region, base)
	for _, p := range t.pieces[k+1:] {
		out = append(out, piece{p.s, p.start + delta})
	}
	return &pieceText{pieces: out, n: t.n + delta}
}

// joinedText is the whole text as one string, built at most once.
type joinedText struct {
	once sync.Once
	t    *pieceText
	s    string
}

func (j *joinedText) get() string {
	j.once.Do(func() { j.s = j.t.String() })
	return j.s
}

// Text returns the whole text. After an incremental update the first call
// joins the pieces (one copy of the document, then cached); prefer Len and
// Slice for local reads.
func (d *Document) Text() string {
	if d.joined == nil {
		return "" // a zero Document
	}
	return d.joined.get()
}

// Len is the length of the text in bytes.
func (d *Document) Len() int {
	if d.text == nil {
		return 0
	}
	return d.text.n
}

// Slice returns Text()[start:end], clamped to the text; cheap when the range
// lies inside one piece (the usual case for a line or a message part).
func (d *Document) Slice(start, end int) string {
	n := d.Len()
	start = max(0, min(start, n))
	end = max(start, min(end, n))
	if start == end {
		return ""
	}
	return d.text.slice(start, end)
}

// setText installs the text; full is the joined string when the caller has it.
func (d *Document) setText(t *pieceText, full string, haveFull bool) {
	d.text = t
	d.joined = &joinedText{t: t}
	if haveFull {
		d.joined.once.Do(func() { d.joined.s = full })
	}
}

// SameText says whether two snapshots hold the same text. Snapshots derived
// from one another share their unchanged pieces, which compare by address,
// so checking that a client's echo equals the text the server expected
// costs the changed pieces, not the whole document.
func SameText(a, b *Document) bool {
	if a == b {
		return true
	}
	if a.Len() != b.Len() {
		return false
	}
	if a.Len() == 0 {
		return true
	}
	pa, pb := a.text.pieces, b.text.pieces
	i, j, offA, offB := 0, 0, 0, 0 // offsets inside pa[i], pb[j]
	for i < len(pa) && j < len(pb) {
		sa, sb := pa[i].s[offA:], pb[j].s[offB:]
		n := min(len(sa), len(sb))
		if !samePrefix(sa, sb, n) {
			return false
		}
		offA, offB = offA+n, offB+n
		if offA == len(pa[i].s) {
			i, offA = i+1, 0
		}
		if offB == len(pb[j].s) {
			j, offB = j+1, 0
		}
	}
	return true
}

// samePrefix compares the first n bytes of a and b; a shared piece (the
// same bytes in memory) is equal without reading it.
func samePrefix(a, b string, n int) bool {
	if unsafe.StringData(a) == unsafe.StringData(b) {
		return true
	}
	return a[:n] == b[:n]
}

package chatdoc

import "sort"

// replace returns the index of newText, which is the old text with
// [start, end) replaced. Only the chunks holding the changed lines are
// rescanned; later chunks are shared and shifted (O(chunks) headers).
func (li *LineIndex) replace(start, end int, newText *pieceText) *LineIndex {
	delta := newText.n - li.text.n
	if crAtBoundary(li.text, start) || crAtBoundary(li.text, end) || crAtBoundary(newText, start) || crAtBoundary(newText, end+delta) {
		// A "\r" right before an edge of the edit may pair with a "\n"
		// after it (or stop pairing): whether that is one line break or two
		// changes outside the rescanned region. Rare (lone carriage
		// returns, or an edit splitting "\r\n"): index the text again.
		return newLineIndex(newText)
	}
	old := li.table().chunks
	ca := li.chunkIndexAt(start)
	cb := li.chunkIndexAt(end)
	regionEnd := li.text.n
	if cb+1 < len(old) {
		regionEnd = old[cb+1].base
	}
	first := old[ca]
	chunks := make([]lineChunk, ca, len(old)+4)
	copy(chunks, old[:ca])
	atEnd := cb+1 == len(old)
	chunks = appendChunks(chunks, newText, first.base, regionEnd+delta, first.firstLine, atEnd)
	if !atEnd {
		last := chunks[len(chunks)-1]
		lineDelta := last.firstLine + len(last.starts) - old[cb+1].firstLine
		for _, c := range old[cb+1:] {
			c.base += delta
			c.firstLine += lineDelta
			chunks = append(chunks, c)
		}
	}
	return indexOf(newText, chunks)
}

// crAtBoundary says whether the byte before offset is a "\r".
func crAtBoundary(t *pieceText, offset int) bool {
	return offset > 0 && offset <= t.n && t.byteAt(offset-1) == '\r'
}

// chunkIndexAt is the index of the chunk holding the line of offset.
func (li *LineIndex) chunkIndexAt(offset int) int {
	chunks := li.table().chunks
	return sort.Search(len(chunks), func(i int) bool { return chunks[i].base > offset }) - 1
}

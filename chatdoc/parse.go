package chatdoc

import (
	"runtime"
	"strings"
)

// Parse reads a whole document. It never panics and runs in time linear in
// len(text): one scan over the lines, on two cores for a large body when
// the program allows it (Accel.Parallel). The
// line starts are found on the first conversion (LineIndex).
func Parse(text string) *Document { return parse(text, false) }

// ParseOnce is Parse for a document read once and not edited (`chatls
// check`, `chatls parse`): its nodes come from a few large arrays instead
// of one allocation each, which takes a fifth off the CPU time of checking
// a 10 MB conversation. Editing the result is correct, but a replaced
// message's old nodes then stay in memory as long as their neighbours do
// (what Parse's nodes never do: TestReplacedMessagesAreReleased).
func ParseOnce(text string) *Document { return parse(text, true) }

func parse(text string, once bool) *Document {
	t := newPieceText(text)
	d := &Document{Newline: detectNewline(text), Lines: newLineIndex(t)}
	d.setText(t, text, true)
	first, _ := lineAt(text, 0)
	_, d.firstLineOpener = frontmatterOpener(first)
	d.Frontmatter, d.bodyStart = parseFrontmatter(text)
	var msgs []*Message
	msgs, d.preDiags = scanBody(text, d.bodyStart, once)
	d.store = newMessageStore(msgs)
	// The lists of tool uses and results cost a pass over pointers and
	// make lookups by ID a slice index; later snapshots take them over
	// when an edit moves nothing. The ID findings read the IDs from them.
	d.idFindings, d.ids = listIDProblems(d.store)
	return d
}

// parallelParseMin is the body size from which Parse scans two halves at
// once (a variable so that tests can split small documents).
var parallelParseMin = 1 << 20

// scanBody scans the messages from bodyStart, a large body in two halves on
// two cores: the second half from a role marker near the middle, the first
// up to that marker. A message start resets the scanner's state (what Apply
// relies on too), so when the first half really starts a message there —
// the marker is not inside a fence, say — the halves join into exactly the
// sequential result; otherwise the first scan simply goes on to the end.
func scanBody(text string, bodyStart int, batched bool) ([]*Message, []Diagnostic) {
	split := -1
	if len(text)-bodyStart >= parallelParseMin && runtime.GOMAXPROCS(0) > 1 && accel.Parallel != nil {
		split = markerNear(text, bodyStart+(len(text)-bodyStart)/2)
	}
	s := newBodyScanner(text, batched)
	if split < 0 {
		msgs, _ := s.scan(bodyStart, nil)
		return msgs, s.pre
	}
	var first, second []*Message
	var end int
	accel.Parallel(func() {
		first, end = s.scan(bodyStart, func(p int) bool { return p == split })
	}, func() {
		second, _ = newBodyScanner(text, batched).scan(split, nil)
	})
	if end != split {
		return first, s.pre // the marker was no message start: first has it all
	}
	for _, m := range second {
		for _, u := range m.ToolUses {
			u.Message += len(first)
		}
		for _, r := range m.ToolResults {
			r.Message += len(first)
		}
	}
	return append(first, second...), s.pre
}

// markerNear is the start of the first own-line role marker at or after
// offset, or -1.
func markerNear(text string, offset int) int {
	for pos := offset; pos < len(text); {
		i := strings.Index(text[pos:], "\n@")
		if i < 0 {
			return -1
		}
		start := pos + i + 1
		line, _ := lineAt(text, start)
		if _, inline, ok := roleMarker(line); ok && inline == "" {
			return start
		}
		pos = start
	}
	return -1
}

// finish computes the document-wide ID findings (Replace keeps them
// when an edit leaves every ID alone).
func (d *Document) finish() {
	d.idFindings, d.ids = findIDProblems(d.store)
}

// detectNewline picks the style of the first line ending ("\n" if none).
func detectNewline(text string) string {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// ToolUse returns the first tool use with that ID, or nil. O(1).
func (d *Document) ToolUse(id string) *ToolUse {
	if i, ok := d.ids.uses.index(id); ok {
		return d.store.toolUse(i)
	}
	return nil
}

// ToolResult returns the first tool result with that ID, or nil. O(1).
func (d *Document) ToolResult(id string) *ToolResult {
	if i, ok := d.ids.results.index(id); ok {
		return d.store.toolResult(i)
	}
	return nil
}

// MessageAt returns the message holding offset (a message owns its span up to
// the next marker; the last one owns the document end), or nil before the
// first marker.
func (d *Document) MessageAt(offset int) *Message {
	i := d.store.indexAt(offset)
	if i < 0 {
		return nil
	}
	return d.store.message(i)
}

// MessageIndexAt is the index of the message holding offset, or -1 before
// the first marker.
func (d *Document) MessageIndexAt(offset int) int { return d.store.indexAt(offset) }

// leadingDiags are the findings before the messages: those of the text
// before the first marker (the frontmatter's evaluation has its own).
func (d *Document) leadingDiags() []Diagnostic { return d.preDiags }

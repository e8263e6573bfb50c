package contextwin

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/chatls/chatls/chatdoc"
)

// What "Trim old tool outputs" trims and keeps (SPEC §11: results larger
// than 2 KB lose all but their first lines). Ten lines or 1 KB, whichever
// is shorter, show what the output was (a compiler's first errors, a
// file's head) at a twentieth of the smallest output trimmed.
const (
	trimAbove = 2 << 10 // a result's content must be larger than this
	keepLines = 10
	keepBytes = 1 << 10
)

// TrimmedLine ends a trimmed output (SPEC §11).
func TrimmedLine(archive string) string {
	return "[trimmed; full output in " + archive + "]"
}

// Trimming is the trimmed document: edits to apply as one workspace edit,
// after writing the archive.
type Trimming struct {
	// Edits replace the contents of the trimmed results (between their
	// fences, which stay) in document order.
	Edits []chatdoc.TextEdit
	// Archive is a chat document: the frontmatter, then for each trimmed
	// result its tool use in an `@Assistant:` message and the result, whole,
	// in the `@You:` message after it, verbatim.
	Archive []byte
	Trimmed int // results trimmed
	Saved   int // bytes the edits remove
}

// Trim trims the finished tool results larger than 2 KB in the messages
// before the newest keepTokens (and before an unfinished cycle, which it
// leaves alone) to their first lines and TrimmedLine. The fences stay as
// they are: a prefix of the content holds no longer backtick run than the
// whole did.
func Trim(doc *chatdoc.Document, keepTokens int, archivePath string) (Trimming, error) {
	l := newLayout(doc)
	before := min(l.keepFrom(keepTokens), l.open)
	name := filepath.Base(archivePath)
	var t Trimming
	var groups []archivedCalls
	for _, r := range doc.ToolResults() {
		if r.Message >= before {
			break
		}
		um := l.useMessage(r)
		if r.IsPlaceholder() || r.Fence == nil || !r.Fence.Closed() || len(r.Content) <= trimAbove || um < 0 {
			continue
		}
		cs := r.Fence.ContentSpan
		raw := doc.Slice(cs.Start, cs.End)
		kept := firstLines(raw, doc.Newline) + TrimmedLine(name) + doc.Newline
		t.Edits = append(t.Edits, chatdoc.TextEdit{Span: cs, NewText: kept})
		t.Trimmed++
		t.Saved += len(raw) - len(kept)
		if n := len(groups); n == 0 || groups[n-1].useMessage != um || groups[n-1].resultMessage != r.Message {
			groups = append(groups, archivedCalls{useMessage: um, resultMessage: r.Message})
		}
		g := &groups[len(groups)-1]
		g.uses = append(g.uses, useIn(doc.Message(um), r.ID).Span)
		g.results = append(g.results, r.Span)
	}
	if t.Trimmed == 0 {
		return Trimming{}, fmt.Errorf("nothing to trim: no finished tool output before the newest %s tokens is larger than 2 KB", WindowLabel(keepTokens))
	}
	var archive strings.Builder
	archive.WriteString(archiveHead(doc))
	for _, g := range groups {
		g.write(&archive, doc)
	}
	t.Archive = []byte(archive.String())
	return t, nil
}

// archivedCalls are the trimmed results of one `@You:` message and the
// calls they answer, of one `@Assistant:` message.
type archivedCalls struct {
	useMessage, resultMessage int
	uses, results             []chatdoc.Span
}

// write writes the calls as an `@Assistant:` message and the results as
// the `@You:` message after it, each block verbatim after a blank line,
// as chatls writes placeholders.
func (g archivedCalls) write(b *strings.Builder, doc *chatdoc.Document) {
	nl := doc.Newline
	for _, part := range []struct {
		marker string
		blocks []chatdoc.Span
	}{{"@Assistant:", g.uses}, {"@You:", g.results}} {
		b.WriteString(part.marker + nl)
		for _, s := range part.blocks {
			block := doc.Slice(s.Start, s.End)
			b.WriteString(nl + block)
			if !strings.HasSuffix(block, "\n") {
				b.WriteString(nl)
			}
		}
		b.WriteString(nl)
	}
}

// useIn is m's tool use with that ID (useMessage found one).
func useIn(m *chatdoc.Message, id string) *chatdoc.ToolUse {
	for _, u := range m.ToolUses {
		if u.ID == id {
			return u
		}
	}
	return nil
}

// firstLines is the start of a result's content as trimming keeps it: its
// first keepLines lines, fewer when they pass keepBytes, and at least the
// first keepBytes of a longer first line (cut at a character's start),
// always ending in a line ending (the content's own, else nl).
func firstLines(raw, nl string) string {
	end := 0
	for lines := 0; lines < keepLines && end < len(raw); lines++ {
		next := len(raw)
		if i := strings.IndexByte(raw[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if next > keepBytes {
			break
		}
		end = next
	}
	if end == 0 { // the first line alone is longer than keepBytes
		end = min(keepBytes, len(raw))
		for end > 0 && end < len(raw) && !utf8.RuneStart(raw[end]) {
			end--
		}
		return raw[:end] + nl
	}
	if !strings.HasSuffix(raw[:end], "\n") {
		return raw[:end] + nl
	}
	return raw[:end]
}

package contextwin

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// Compaction is a compacted document: one edit and the archive to write
// before applying it.
type Compaction struct {
	// Edit replaces the moved messages by the summary message (and the
	// system prompt, when it was among them): one edit, one undo.
	Edit chatdoc.TextEdit
	// Archive is a chat document: the frontmatter and the moved messages,
	// verbatim.
	Archive []byte
	Moved   int // messages in the archive
}

// CompactedLine is the first line of the summary message (SPEC §11).
func CompactedLine(moved int, archive string) string {
	return "<!-- chatls:compacted " + strconv.Itoa(moved) + " messages into " + archive + " -->"
}

// Compact moves the messages of cut into an archive at archivePath and
// replaces them by one `@You:` message: CompactedLine, naming the archive
// by its file name (it lies beside the document), and summary, the text
// the model wrote. The summary is written as streamed text is (SPEC §1):
// a line of it that would read as a role marker or a tool header gets a
// leading space, and a fence it leaves open is closed, so it can't become
// structure or swallow the messages kept after it.
func Compact(doc *chatdoc.Document, cut Cut, archivePath, summary string) (Compaction, error) {
	n := doc.MessageCount()
	if cut.From < 0 || cut.To <= cut.From || cut.To > n || cut.Keep >= 0 && (cut.Keep < cut.From || cut.Keep >= cut.To) {
		return Compaction{}, fmt.Errorf("the cut %+v does not fit the document's %d messages; find the cut again", cut, n)
	}
	start, end := doc.MessageSpan(cut.From).Start, messageStart(doc, cut.To)
	var kept string
	if cut.Keep >= 0 {
		k := doc.MessageSpan(cut.Keep)
		kept = doc.Slice(k.Start, k.End)
	}
	head, spans := archiveHead(doc), movedSpans(doc, cut)
	size := len(head)
	for _, s := range spans {
		size += s.Len()
	}
	archive := append(make([]byte, 0, size), head...) // sized: megabytes, copied once more at most
	for _, s := range spans {
		archive = append(archive, doc.Slice(s.Start, s.End)...)
	}
	c := Compaction{Moved: cut.Moved(), Archive: archive}
	c.Edit = chatdoc.TextEdit{
		Span:    chatdoc.Span{Start: start, End: end},
		NewText: kept + summaryMessage(c.Moved, filepath.Base(archivePath), summary, doc.Newline),
	}
	return c, nil
}

// Apply is the document's text after the compaction.
func (c Compaction) Apply(doc *chatdoc.Document) string {
	return doc.Slice(0, c.Edit.Span.Start) + c.Edit.NewText + doc.Slice(c.Edit.Span.End, doc.Len())
}

// messageStart is where message i starts; the document's end for i = n.
func messageStart(doc *chatdoc.Document, i int) int {
	if i >= doc.MessageCount() {
		return doc.Len()
	}
	return doc.MessageSpan(i).Start
}

// summaryMessage is the `@You:` message that stands for the moved ones,
// ending in a blank line before the message after it.
func summaryMessage(moved int, archive, summary, nl string) string {
	text := "@You:\n" + CompactedLine(moved, archive) + "\n\n"
	if s := safeText(summary); s != "" {
		text += s + "\n\n"
	}
	if nl != "\n" {
		text = strings.ReplaceAll(text, "\n", nl)
	}
	return text
}

// safeText is a model's text as chatdoc.Response writes it into a message
// (structure-like lines escaped, an open fence closed), without the
// `@You:` Response ends with and without trailing blank lines; line
// endings "\n".
func safeText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var r chatdoc.Response
	out := r.Text(s) + r.End("")
	out = strings.TrimSuffix(out, "@You:\n\n")
	return strings.Trim(out, "\n")
}

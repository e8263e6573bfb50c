package cycle

import (
	"sync"

	"github.com/chatls/chatls/chatdoc"
)

// PartCache remembers, per part of a document (chatdoc.EachPart), the few
// blocks Diagnostics and Count look at closer: valid tool uses whose result
// is not beside them, and placeholders. After a keystroke only the parts
// the edit replaced are read again; what the closer look finds depends on
// the whole document and the session, so it is done each time, for those
// few. One per document; safe for concurrent use. A nil cache remembers
// nothing.
type PartCache struct {
	mu    sync.Mutex
	parts map[chatdoc.PartKey]partMarks
}

// partMarks are a part's blocks to look at, by their offset from the
// part's first tool use or result.
type partMarks struct {
	uses, placeholders []markedNode
}

// markedNode is a tool use or result by its index (in its part, or in the
// document) and its ID.
type markedNode struct {
	index int
	id    string
}

// candidates are the document's blocks to look at, by their index in the
// document: tool uses that may lack a result, and placeholders.
func (c *PartCache) candidates(doc *chatdoc.Document) (uses, placeholders []markedNode) {
	var known, parts map[chatdoc.PartKey]partMarks
	if c != nil {
		c.mu.Lock()
		known = c.parts
		c.mu.Unlock()
		parts = make(map[chatdoc.PartKey]partMarks, len(known))
	}
	doc.EachPart(func(p chatdoc.Part) {
		marks, ok := known[p.Key]
		if !ok {
			marks = markPart(p)
		}
		if parts != nil {
			parts[p.Key] = marks
		}
		for _, u := range marks.uses {
			uses = append(uses, markedNode{p.FirstUse + u.index, u.id})
		}
		for _, r := range marks.placeholders {
			placeholders = append(placeholders, markedNode{p.FirstResult + r.index, r.id})
		}
	})
	if c != nil {
		c.mu.Lock()
		c.parts = parts // only the current parts: a key holds its part's messages
		c.mu.Unlock()
	}
	return uses, placeholders
}

// markPart finds a part's blocks to look at, reading its nodes as stored.
func markPart(p chatdoc.Part) partMarks {
	var marks partMarks
	use, result := 0, 0
	for j, m := range p.Stored {
		for k, u := range m.ToolUses {
			if u.Valid() && !answeredNext(p.Stored, j, k, u.ID) {
				marks.uses = append(marks.uses, markedNode{use, u.ID})
			}
			use++
		}
		for _, r := range m.ToolResults {
			if r.IsPlaceholder() {
				marks.placeholders = append(marks.placeholders, markedNode{result, r.ID})
			}
			result++
		}
	}
	return marks
}

// answeredNext reports whether the k-th tool use of message j is answered
// where results usually are: the k-th result of the next message. It saves
// the ID lookup for nearly every use of a long conversation; false means
// "look it up".
func answeredNext(msgs []*chatdoc.Message, j, k int, id string) bool {
	if j+1 >= len(msgs) {
		return false
	}
	results := msgs[j+1].ToolResults
	return k < len(results) && results[k].ID == id
}

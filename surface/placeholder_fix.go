package surface

import (
	"fmt"

	"github.com/chatls/chatls/chatdoc"
)

// insertMissingPlaceholders adds pending placeholders for every unanswered,
// valid tool use of the diagnostic's Assistant message at once: chatdoc keeps
// them in tool-use order only when they go in together. Calls with invalid
// input get none (SPEC §1).
func insertMissingPlaceholders(doc *chatdoc.Document, d chatdoc.Diagnostic) *Fix {
	use := toolUseAt(doc, d)
	if use == nil || use.Message < 0 || use.Message >= doc.MessageCount() {
		return nil
	}
	var reqs []chatdoc.PlaceholderRequest
	for _, u := range doc.Message(use.Message).ToolUses {
		if u != nil && u.Valid() && doc.ToolResult(u.ID) == nil && !requested(reqs, u.ID) {
			reqs = append(reqs, chatdoc.PlaceholderRequest{ID: u.ID, Status: chatdoc.StatusPending})
		}
	}
	if len(reqs) == 0 {
		return nil
	}
	edits, err := chatdoc.InsertPlaceholders(doc, reqs, placeholderDialect(doc))
	if err != nil || len(edits) == 0 {
		return nil
	}
	title := "Insert an approval placeholder"
	if len(reqs) > 1 {
		title = fmt.Sprintf("Insert %d approval placeholders", len(reqs))
	}
	return &Fix{Title: title, Edits: edits, Preferred: true}
}

func requested(reqs []chatdoc.PlaceholderRequest, id string) bool {
	for _, r := range reqs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// placeholderDialect writes what the document already uses (its last
// placeholder's form, legacy read as fence), else chatls's seed fence form.
// The server's own "Insert approval placeholders" action follows the
// placeholderStyle setting instead.
func placeholderDialect(doc *chatdoc.Document) chatdoc.Dialect {
	for i := len(doc.ToolResults()) - 1; i >= 0; i-- {
		if r := doc.ToolResults()[i]; r != nil && r.Dialect == chatdoc.DialectSuffix {
			return chatdoc.DialectSuffix
		} else if r != nil && r.Dialect != chatdoc.DialectNone {
			return chatdoc.DialectFence
		}
	}
	return chatdoc.DialectFence
}

package chatdoc

import (
	"reflect"
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
	if !ids.Has("a") || !ids.Has("b") || ids.Has("c") || len(ids.ids) != 2 {
		t.Fatalf("IDs a, b (a twice) and a result c: Has(a) %v Has(b) %v Has(c) %v, %d IDs", ids.Has("a"), ids.Has("b"), ids.Has("c"), len(ids.ids))
	}
	at := strings.LastIndex(text, "x\n")
	typed := d.Replace(Span{at, at}, "more ")
	if !strings.Contains(typed.Text(), "more x") {
		t.Fatalf("edit landed elsewhere: %q", typed.Text())
	}
	if reflect.ValueOf(typed.ToolUseIDs().ids).Pointer() != reflect.ValueOf(ids.ids).Pointer() {
		t.Fatal("an edit that leaves the IDs alone built a new index")
	}
	renamed := d.Replace(Span{strings.Index(text, "(`b`)") + 2, strings.Index(text, "(`b`)") + 3}, "z")
	if got := renamed.ToolUseIDs(); !got.Has("z") || got.Has("b") || !ids.Has("b") {
		t.Fatalf("after renaming b to z: Has(z) %v Has(b) %v; the first snapshot's Has(b) %v", got.Has("z"), got.Has("b"), ids.Has("b"))
	}
}

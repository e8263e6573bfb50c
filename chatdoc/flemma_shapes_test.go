package chatdoc

import "testing"

// Flemma 0.12–0.14 shapes (SPEC §1 "Flemma 0.12–0.14"): each document
// parses to the expected nodes and prints back byte-identical.

// flemmaShapes are documents in the 0.12–0.14 forms, also fuzz seeds.
var flemmaShapes = []string{
	dottedNames,
}

const dottedNames = "@Assistant:\n" +
	"**Tool Use:** `slack.channels_list` (`toolu.mcp.1`)\n\n```json\n{\"limit\":5}\n```\n\n" +
	"**Tool Use:** `flemma.jobs.status` (`urn:flemma:tool:flemma.jobs.status:ab12`)\n```json\n{}\n```\n\n" +
	"**Tool Use:** `slack:channels_list` (`toolu_old`)\n\n```json\n{}\n```\n\n" +
	"@You:\n**Tool Result:** `toolu.mcp.1`\n\n```\n#general\n```\n"

// assertPrintsBack checks Parse→print identity.
func assertPrintsBack(t *testing.T, text string) *Document {
	t.Helper()
	d := Parse(text)
	if d.Text() != text || ApplyEdits(d.Text(), nil) != text {
		t.Fatal("parse then print is not byte-identical")
	}
	return d
}

func TestFlemmaDottedToolNames(t *testing.T) {
	d := assertPrintsBack(t, dottedNames)
	if diags := d.Diagnostics(); len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	want := []struct{ name, id string }{
		{"slack.channels_list", "toolu.mcp.1"},
		{"flemma.jobs.status", "urn:flemma:tool:flemma.jobs.status:ab12"},
		{"slack:channels_list", "toolu_old"},
	}
	uses := d.ToolUses()
	if len(uses) != len(want) {
		t.Fatalf("%d tool uses, want %d", len(uses), len(want))
	}
	for i, w := range want {
		u := uses[i]
		if u.Name != w.name || u.ID != w.id || !u.Valid() {
			t.Errorf("use %d = %q (%q) valid=%v, want %q (%q)", i, u.Name, u.ID, u.Valid(), w.name, w.id)
		}
		if got := d.Slice(u.NameSpan().Start, u.NameSpan().End); got != w.name {
			t.Errorf("use %d NameSpan reads %q", i, got)
		}
		if got := d.Slice(u.IDSpan().Start, u.IDSpan().End); got != w.id {
			t.Errorf("use %d IDSpan reads %q", i, got)
		}
	}
	if r := d.ToolResult("toolu.mcp.1"); r == nil || r.Status != StatusDone || r.Content != "#general" {
		t.Fatalf("result for a dotted ID: %+v", r)
	}
}

package lspext

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"go.lsp.dev/protocol"
)

var update = flag.Bool("update", false, "rewrite the JSON goldens")

// The wire shapes chatls sends, against goldens checked by hand against
// the LSP 3.17 specification (rewrite with -update, then review the diff):
// these are the traps of go.lsp.dev/protocol v0.12.0 (STYLE.md).
func TestWireGoldens(t *testing.T) {
	version := int32(7)
	rng := protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 1, Character: 9}}
	cases := map[string]any{
		"progress_begin": &ProgressParams{Token: "chatls/t1", Value: map[string]any{"kind": "begin", "title": "chatls: bash", "cancellable": true}},
		"apply_edit_versioned": ApplyWorkspaceEditParams{Label: "chatls: tool result", Edit: WorkspaceEdit{
			DocumentChanges: []TextDocumentEdit{{TextDocument: VersionedTextDocumentIdentifier{URI: "file:///w/a.chat", Version: 3}, Edits: []TextEdit{{Range: rng, NewText: "approved"}}}}}},
		"apply_edit_plain":      ApplyWorkspaceEditParams{Edit: WorkspaceEdit{Changes: map[string][]TextEdit{"file:///w/a.chat": {{Range: rng, NewText: ""}}}}},
		"publish_none":          NewPublishDiagnostics("file:///w/a.chat", &version, nil),
		"publish_one":           NewPublishDiagnostics("file:///w/a.chat", nil, []Diagnostic{{Range: rng, Severity: 3, Code: "pending-approval", Source: "chatls", Message: "approval pending: bash: $ ls"}}),
		"content_change_full":   TextDocumentContentChangeEvent{Text: "whole"},
		"content_change_insert": TextDocumentContentChangeEvent{Range: &protocol.Range{}, Text: "at 0:0"},
		"inlay_hint":            InlayHint{Position: rng.End, Label: "bash: $ ls", PaddingLeft: true},
		"apply_result":          ApplyWorkspaceEditResult{Applied: false, FailureReason: "version mismatch"},
		"server_capabilities":   ServerCapabilities{PositionEncoding: EncodingUTF8, InlayHintProvider: true},
	}
	for name, v := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(v, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s changed:\n got %s\nwant %s", name, got, want)
			}
		})
	}
}

// The reply of workspace/applyEdit decodes as an object, not a bool.
func TestApplyResultDecodes(t *testing.T) {
	var r ApplyWorkspaceEditResult
	if err := json.Unmarshal([]byte(`{"applied":false,"failureReason":"busy","failedChange":0}`), &r); err != nil || r.Applied || r.FailureReason != "busy" || r.FailedChange == nil {
		t.Fatalf("got %+v, %v", r, err)
	}
	var c TextDocumentContentChangeEvent
	if err := json.Unmarshal([]byte(`{"text":"x"}`), &c); err != nil || c.Range != nil {
		t.Fatalf("a change without a range must stay a full replacement: %+v", c)
	}
}

package lspext

import "go.lsp.dev/protocol"

// ProgressParams is $/progress's params. Send it by pointer or as this
// struct: protocol's own type marshals a string token as "token":{}.
type ProgressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

// WorkDoneProgressCreateParams is window/workDoneProgress/create's params.
type WorkDoneProgressCreateParams struct {
	Token string `json:"token"`
}

// TextEdit is one edit of a document.
type TextEdit struct {
	Range   protocol.Range `json:"range"`
	NewText string         `json:"newText"`
}

// VersionedTextDocumentIdentifier names the version an edit was computed for.
type VersionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

// TextDocumentEdit is a versioned edit: the client refuses it when the
// document has moved on (the user typed).
type TextDocumentEdit struct {
	TextDocument VersionedTextDocumentIdentifier `json:"textDocument"`
	Edits        []TextEdit                      `json:"edits"`
}

// WorkspaceEdit carries either versioned documentChanges or, for clients
// without documentChanges support, plain changes by URI.
type WorkspaceEdit struct {
	DocumentChanges []TextDocumentEdit    `json:"documentChanges,omitempty"`
	Changes         map[string][]TextEdit `json:"changes,omitempty"`
}

// ApplyWorkspaceEditParams is workspace/applyEdit's params.
type ApplyWorkspaceEditParams struct {
	Label string        `json:"label,omitempty"`
	Edit  WorkspaceEdit `json:"edit"`
}

// Diagnostic is an LSP diagnostic with a string code.
type Diagnostic struct {
	Range    protocol.Range `json:"range"`
	Severity int            `json:"severity"`
	Code     string         `json:"code,omitempty"`
	Source   string         `json:"source"`
	Message  string         `json:"message"`
}

// PublishDiagnosticsParams is textDocument/publishDiagnostics's params.
// Diagnostics must never be nil: protocol's type sends null, which some
// clients reject; NewPublishDiagnostics makes sure of it.
type PublishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int32       `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// NewPublishDiagnostics builds the params with an empty list for none.
func NewPublishDiagnostics(uri string, version *int32, diags []Diagnostic) PublishDiagnosticsParams {
	if diags == nil {
		diags = []Diagnostic{}
	}
	return PublishDiagnosticsParams{URI: uri, Version: version, Diagnostics: diags}
}

// ShowMessageParams is window/showMessage's params.
type ShowMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// Message types of window/showMessage.
const (
	MessageError   = 1
	MessageWarning = 2
	MessageInfo    = 3
)

// ConfigurationParams is workspace/configuration's params.
type ConfigurationParams struct {
	Items []ConfigurationItem `json:"items"`
}

// ConfigurationItem asks for one settings section.
type ConfigurationItem struct {
	Section string `json:"section"`
}

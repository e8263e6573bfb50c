// Package lspext holds the LSP 3.17 types that go.lsp.dev/protocol v0.12.0
// lacks or gets wrong (STYLE.md "Known traps"): position encodings, inlay
// hints, a content change that can tell a full replacement from an insert at
// 0:0, and an applyEdit result that is not a bare bool.
package lspext

import "go.lsp.dev/protocol"

// Position encodings (LSP 3.17 PositionEncodingKind).
const (
	EncodingUTF8  = "utf-8"
	EncodingUTF16 = "utf-16"
	EncodingUTF32 = "utf-32"
)

// ClientCapabilities is the subset of the client's capabilities chatls reads.
type ClientCapabilities struct {
	General *struct {
		PositionEncodings []string `json:"positionEncodings,omitempty"`
	} `json:"general,omitempty"`
	Workspace *struct {
		ApplyEdit bool `json:"applyEdit,omitempty"`
		InlayHint *struct {
			RefreshSupport bool `json:"refreshSupport,omitempty"`
		} `json:"inlayHint,omitempty"`
		CodeLens *struct {
			RefreshSupport bool `json:"refreshSupport,omitempty"`
		} `json:"codeLens,omitempty"`
		SemanticTokens *struct {
			RefreshSupport bool `json:"refreshSupport,omitempty"`
		} `json:"semanticTokens,omitempty"`
		Configuration bool `json:"configuration,omitempty"`
		WorkspaceEdit *struct {
			DocumentChanges bool `json:"documentChanges,omitempty"`
		} `json:"workspaceEdit,omitempty"`
	} `json:"workspace,omitempty"`
	Window *struct {
		WorkDoneProgress bool `json:"workDoneProgress,omitempty"`
		ShowMessage      any  `json:"showMessage,omitempty"`
	} `json:"window,omitempty"`
}

// WorkspaceFolder as sent in initialize.
type WorkspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// InitializeParams is the subset of initialize's params chatls reads. URIs stay strings.
type InitializeParams struct {
	ProcessID             int                `json:"processId,omitempty"`
	RootURI               string             `json:"rootUri,omitempty"`
	RootPath              string             `json:"rootPath,omitempty"`
	WorkspaceFolders      []WorkspaceFolder  `json:"workspaceFolders,omitempty"`
	Capabilities          ClientCapabilities `json:"capabilities"`
	InitializationOptions any                `json:"initializationOptions,omitempty"`
	ClientInfo            *struct {
		Name    string `json:"name"`
		Version string `json:"version,omitempty"`
	} `json:"clientInfo,omitempty"`
}

// ServerCapabilities adds the 3.17 fields to protocol's struct.
type ServerCapabilities struct {
	protocol.ServerCapabilities
	PositionEncoding  string `json:"positionEncoding,omitempty"`
	InlayHintProvider any    `json:"inlayHintProvider,omitempty"`
}

// InitializeResult is initialize's answer.
type InitializeResult struct {
	Capabilities ServerCapabilities `json:"capabilities"`
	ServerInfo   *ServerInfo        `json:"serverInfo,omitempty"`
}

type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// TextDocumentContentChangeEvent keeps Range a pointer so a full replacement
// (no range) is not mistaken for an insert at 0:0.
type TextDocumentContentChangeEvent struct {
	Range       *protocol.Range `json:"range,omitempty"`
	RangeLength uint32          `json:"rangeLength,omitempty"`
	Text        string          `json:"text"`
}

// DidChangeTextDocumentParams uses the fixed change event.
type DidChangeTextDocumentParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []TextDocumentContentChangeEvent         `json:"contentChanges"`
}

// ApplyWorkspaceEditResult is workspace/applyEdit's reply (protocol decodes it as a bool).
type ApplyWorkspaceEditResult struct {
	Applied       bool   `json:"applied"`
	FailureReason string `json:"failureReason,omitempty"`
	FailedChange  *int   `json:"failedChange,omitempty"`
}

// InlayHintParams is textDocument/inlayHint's params.
type InlayHintParams struct {
	TextDocument protocol.TextDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range                  `json:"range"`
}

// InlayHint kinds.
const (
	InlayHintKindType      = 1
	InlayHintKindParameter = 2
)

// InlayHint is one hint. Label is a plain string here.
type InlayHint struct {
	Position     protocol.Position `json:"position"`
	Label        string            `json:"label"`
	Kind         int               `json:"kind,omitempty"`
	Tooltip      string            `json:"tooltip,omitempty"`
	PaddingLeft  bool              `json:"paddingLeft,omitempty"`
	PaddingRight bool              `json:"paddingRight,omitempty"`
}

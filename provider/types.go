// Package provider turns a parsed .chat document into a model request and
// the model's streamed answer back into events, for every API chatls speaks
// (SPEC §7). It knows nothing of LSP: the server and `chatls send` drive it.
//
// The request body is built here, field by field, as Flemma 0.11 builds it
// (golden tests hold each API's body); the vendor's official SDK carries it:
// endpoint, authentication, streaming decode, typed events and API errors.
package provider

import (
	"encoding/json"

	"github.com/chatls/chatls/chatdoc"
)

// PartKind says what a Part holds.
type PartKind int

const (
	PartText       PartKind = iota // Text
	PartFile                       // File: an attachment from an @./file reference
	PartThinking                   // Text is the reasoning; Signature/Redacted as written
	PartToolUse                    // ID, Name, Input
	PartToolResult                 // ID, Name (of its use), Text, IsError
)

// Part is one piece of a message, in document order.
type Part struct {
	Kind PartKind
	Text string

	File *Attachment

	Signature *chatdoc.ThinkingSignature
	Redacted  bool

	ID, Name string
	Input    json.RawMessage // compact JSON object as written; {} when the document's input is invalid
	IsError  bool
	// Synthetic marks the result chatls made up for an orphan (OrphanText):
	// Gemini gets Flemma's shape for it, {"error": …, "success": false}.
	Synthetic bool
}

// Attachment is a referenced file's content.
type Attachment struct {
	Path string // as written (decoded), for titles and messages
	MIME string
	Data []byte
}

// IsText reports an attachment sent inline as text.
func (a *Attachment) IsText() bool { return isTextMIME(a.MIME) }

// Message is one turn of the conversation: Role "user" or "assistant".
type Message struct {
	Role  string
	Parts []Part
}

// ToolDef is a tool offered to the model: its name as the document knows it
// (MCP names hold ":"), description and JSON schema of its input.
type ToolDef struct {
	Name        string
	Description string
	Schema      json.RawMessage
	// Strict asks the API to hold the model to the schema (OpenAI
	// Responses `strict: true`, as Flemma sends it for its built-ins): only
	// for schemas that list every property as required and allow no others.
	Strict bool
}

// Prompt is what the model gets, before any API's shape.
type Prompt struct {
	System   string
	Messages []Message
	Tools    []ToolDef
	// CacheKey identifies the conversation for provider-side caching
	// (OpenAI's prompt_cache_key): a hash of the document's path, never the
	// path itself. Empty for an unsaved buffer.
	CacheKey string
}

// Severity of a Problem: an Error stops the send.
type Severity int

const (
	Error Severity = iota + 1
	Warning
)

// Problem is a finding while building the prompt, located in the document.
type Problem struct {
	Span     chatdoc.Span
	Severity Severity
	Message  string
}

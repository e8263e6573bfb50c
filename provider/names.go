package provider

import (
	"bytes"
	"encoding/json"
	"strings"
)

// WireName is a tool's name as APIs take it: the namespace separator, "."
// (Flemma 0.12) or ":" (0.11), becomes "__" (APIs allow only
// [A-Za-z0-9_-]); ToolName reverses it.
func WireName(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, ":", "__"), ".", "__")
}

// ToolName is the document's name for a name the model sent: `server.tool`.
func ToolName(wire string) string { return strings.ReplaceAll(wire, "__", ".") }

// WireID is a tool-use ID as Anthropic, Responses and Gemini take it:
// characters outside [A-Za-z0-9_-] become "_", at most 64 of them, no
// trailing "_" (Flemma's normalize_tool_id; Gemini's minted URNs and other
// providers' IDs stay valid). The document keeps the original.
func WireID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return strings.TrimRight(string(b), "_")
}

// compactJSON compacts a JSON text known to be valid.
func compactJSON(s string) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) != nil {
		return json.RawMessage("{}")
	}
	return buf.Bytes()
}

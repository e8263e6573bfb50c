// Package plugin runs plugin executables as tool sources (SPEC §5 "Custom
// tools"): a long-lived child process speaking newline-delimited JSON on
// stdin/stdout. See docs/custom-tools.md for the protocol as plugin authors
// see it.
package plugin

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Message types on the wire.
const (
	typeInit   = "init"
	typeCall   = "call"
	typeResult = "result"
	typeCancel = "cancel"
)

// inbound is any message from the plugin, decoded in one pass; Type says
// which fields count.
type inbound struct {
	Type    string        `json:"type"`
	Tools   []toolSpec    `json:"tools"`   // init
	CallID  string        `json:"call_id"` // result
	Content []contentItem `json:"content"`
	IsError bool          `json:"is_error"`
}

type initRequest struct {
	Type string `json:"type"`
}

type initResponse struct {
	Type  string     `json:"type"`
	Tools []toolSpec `json:"tools"`
}

// toolSpec is one tool as the plugin declares it. Preview is a chatls
// extension: a text/template over the input, overridden by the config's
// `preview`.
type toolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Preview     string          `json:"preview,omitempty"`
}

// callRequest asks the plugin to run one tool. Cwd is a chatls extension (the
// document's directory) that plugins may ignore.
type callRequest struct {
	Type   string         `json:"type"`
	Name   string         `json:"name"`
	CallID string         `json:"call_id"`
	Params map[string]any `json:"params"`
	Cwd    string         `json:"cwd,omitempty"`
}

// cancelRequest tells the plugin chatls no longer waits for a call; plugins
// may ignore it (unknown types must be ignored).
type cancelRequest struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
}

type resultMessage struct {
	Type    string        `json:"type"`
	CallID  string        `json:"call_id"`
	Content []contentItem `json:"content"`
	IsError bool          `json:"is_error"`
}

type contentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Data     string `json:"data,omitempty"`
}

// text flattens a result's content into the text written into the document.
func (m resultMessage) text() string {
	parts := make([]string, 0, len(m.Content))
	for _, c := range m.Content {
		switch c.Type {
		case "text", "":
			parts = append(parts, c.Text)
		case "image":
			// Data is base64; 3 bytes per 4 characters is close enough for a label.
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes]", c.MimeType, len(c.Data)*3/4))
		default:
			parts = append(parts, fmt.Sprintf("[%s content]", c.Type))
		}
	}
	return strings.Join(parts, "\n")
}

// validateTools checks what a plugin declared in its init response.
func validateTools(specs []toolSpec) error {
	seen := make(map[string]bool, len(specs))
	for i, t := range specs {
		if t.Name == "" {
			return fmt.Errorf("tool #%d has no name", i+1)
		}
		if seen[t.Name] {
			return fmt.Errorf("tool %q is declared twice", t.Name)
		}
		seen[t.Name] = true
		if len(t.Parameters) > 0 && string(t.Parameters) != "null" {
			var obj map[string]any
			if err := json.Unmarshal(t.Parameters, &obj); err != nil {
				return fmt.Errorf("tool %q: parameters must be a JSON Schema object: %v", t.Name, err)
			}
		}
	}
	return nil
}

package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chatls/chatls/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// toResult flattens an MCP tool result into the text written into the
// document: text as is, binary content as a one-line label, items joined by
// newlines.
func toResult(res *sdk.CallToolResult) tools.Result {
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(data))
		}
	}
	return tools.Result{Text: strings.Join(parts, "\n"), IsError: res.IsError}
}

func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s%s]", c.URI, describe(c.Name, c.MIMEType))
	case *sdk.EmbeddedResource:
		r := c.Resource
		if r == nil {
			return "[resource]"
		}
		if r.Blob != nil {
			return fmt.Sprintf("[resource: %s, %s, %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
		}
		return fmt.Sprintf("[resource: %s]\n%s", r.URI, r.Text)
	default:
		data, _ := c.MarshalJSON()
		return fmt.Sprintf("[content: %s]", data)
	}
}

func describe(name, mime string) string {
	var bits []string
	for _, s := range []string{name, mime} {
		if s != "" {
			bits = append(bits, s)
		}
	}
	if len(bits) == 0 {
		return ""
	}
	return " (" + strings.Join(bits, ", ") + ")"
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}

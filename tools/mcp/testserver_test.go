package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/chatls/chatls/config"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

// newTestServer is an in-process go-sdk server with one tool per result shape.
func newTestServer() *sdk.Server {
	server := sdk.NewServer(&sdk.Implementation{Name: "test"}, nil)
	sdk.AddTool(server, &sdk.Tool{
		Name: "greet", Description: "Greet someone", Title: "Greeter",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, func(_ context.Context, _ *sdk.CallToolRequest, in greetIn) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello " + in.Name}}}, nil, nil
	})
	raw := func(name string, h sdk.ToolHandler) {
		server.AddTool(&sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, h)
	}
	raw("multi", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		size := int64(99)
		return &sdk.CallToolResult{Content: []sdk.Content{
			&sdk.TextContent{Text: "first"},
			&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 68)},
			&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "note body"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.bin", Blob: []byte{1, 2, 3}}},
			&sdk.ResourceLink{URI: "file:///big.log", Name: "big.log", MIMEType: "text/plain", Size: &size},
			&sdk.TextContent{Text: "last"},
		}}, nil
	})
	raw("fail", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "channel not found"}}}, nil
	})
	raw("structured", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"sum": 3}}, nil
	})
	raw("block", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		return nil, errors.New("cancelled by client")
	})
	return server
}

// inMemorySource connects a Source named "test" to server over in-memory pipes.
func inMemorySource(t testing.TB, server *sdk.Server, cfg config.MCPServer) *Source {
	s := NewSource("test", cfg, zaptest.NewLogger(t))
	s.newTransport = func() (sdk.Transport, error) {
		client, srv := sdk.NewInMemoryTransports()
		if _, err := server.Connect(context.Background(), srv, nil); err != nil {
			return nil, err
		}
		return client, nil
	}
	t.Cleanup(func() { s.Close() })
	return s
}

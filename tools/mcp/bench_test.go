package mcp

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// Each pair calls the same server's echo-like tool through chatls's Source
// (mcpTool.Run) and directly with a go-sdk ClientSession.CallTool.

func benchTool(b *testing.B, s *Source, name string, input map[string]any) {
	b.Helper()
	tool := load(b, s)[name]
	if tool == nil {
		b.Fatalf("no tool %s", name)
	}
	ctx := context.Background()
	call := tools.Call{ID: "toolu_bench", Name: name, Input: input}
	for b.Loop() {
		if res := tool.Run(ctx, call, tools.Env{}); res.IsError {
			b.Fatalf("result %+v", res)
		}
	}
}

func benchDirect(b *testing.B, transport sdk.Transport, name string, input map[string]any) {
	b.Helper()
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "bench"}, nil)
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	params := &sdk.CallToolParams{Name: name, Arguments: input}
	for b.Loop() {
		if res, err := sess.CallTool(ctx, params); err != nil || res.IsError {
			b.Fatalf("CallTool: %v %+v", err, res)
		}
	}
}

func inMemoryTransport(b *testing.B, server *sdk.Server) sdk.Transport {
	client, srv := sdk.NewInMemoryTransports()
	if _, err := server.Connect(context.Background(), srv, nil); err != nil {
		b.Fatal(err)
	}
	return client
}

func BenchmarkMCPToolCallInMemory(b *testing.B) {
	s := inMemorySource(b, newTestServer(), config.MCPServer{})
	benchTool(b, s, "test.greet", map[string]any{"name": "bench"})
}

func BenchmarkMCPDirectCallToolInMemory(b *testing.B) {
	benchDirect(b, inMemoryTransport(b, newTestServer()), "greet", map[string]any{"name": "bench"})
}

func buildStdioServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stdioserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/stdioserver").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func BenchmarkMCPToolCallStdio(b *testing.B) {
	s := NewSource("local", config.MCPServer{Command: buildStdioServer(b)}, zap.NewNop())
	defer s.Close()
	benchTool(b, s, "local.echo", map[string]any{"text": "bench"})
}

func BenchmarkMCPDirectCallToolStdio(b *testing.B) {
	benchDirect(b, &sdk.CommandTransport{Command: exec.Command(buildStdioServer(b))}, "echo", map[string]any{"text": "bench"})
}

func BenchmarkMCPToolCallNPMStdio(b *testing.B) {
	node, script := everything(b)
	s := NewSource("everything", config.MCPServer{Command: node, Args: []string{script, "stdio"}}, zap.NewNop())
	defer s.Close()
	benchTool(b, s, "everything.echo", map[string]any{"message": "bench"})
}

func BenchmarkMCPDirectCallToolNPMStdio(b *testing.B) {
	node, script := everything(b)
	benchDirect(b, &sdk.CommandTransport{Command: exec.Command(node, script, "stdio")}, "echo", map[string]any{"message": "bench"})
}

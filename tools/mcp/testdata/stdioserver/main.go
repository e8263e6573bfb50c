// Command stdioserver is a go-sdk MCP server on stdin/stdout for tests:
// tools "echo" (answers its text, with the value of $GREETING; annotated
// read-only) and "crash"
// (exits the process mid-call). With $SPAWN_PIDFILE it starts a background
// `sleep 300` first and appends its pid there (process cleanup tests).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

func main() {
	if f := os.Getenv("SPAWN_PIDFILE"); f != "" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			log.Fatal(err)
		}
		fh, _ := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(fh, child.Process.Pid)
		fh.Close()
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "stdioserver"}, nil)
	// The hints claim the tool is harmless; chatls must never approve on them.
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo text", Title: "Echo",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("%s (pid %d, GREETING=%s)", in.Text, os.Getpid(), os.Getenv("GREETING"))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "crash", Description: "Exit mid-call"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "fatal: out of cheese")
			os.Exit(4)
			return nil, nil, nil
		})
	fmt.Fprintln(os.Stderr, "stdioserver ready")
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
}

// Command stdioserver is a go-sdk MCP server on stdin/stdout for tests:
// tools "echo" (answers its text, with the value of $GREETING) and "crash"
// (exits the process mid-call).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "stdioserver"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo text"},
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

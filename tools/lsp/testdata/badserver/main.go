// badserver is a language server that misbehaves on purpose, for the LSP
// tools' tests: it initializes, then on textDocument/hover either crashes
// (BADSERVER=crash) or never answers (BADSERVER=hang). Every other request
// gets null. Each start appends a line to $BADSERVER_STARTS.
package main

import (
	"context"
	"os"

	"github.com/sourcegraph/jsonrpc2"
)

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

func main() {
	if f, err := os.OpenFile(os.Getenv("BADSERVER_STARTS"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString("start\n")
		f.Close()
	}
	mode := os.Getenv("BADSERVER")
	handler := jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		switch r.Method {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"hoverProvider": true}}, nil
		case "textDocument/hover":
			if mode == "crash" {
				os.Exit(3)
			}
			<-ctx.Done() // hang: never answers
			return nil, ctx.Err()
		case "exit":
			os.Exit(0)
		}
		return nil, nil
	})
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(stdio{}, jsonrpc2.VSCodeObjectCodec{}), jsonrpc2.AsyncHandler(handler))
	<-conn.DisconnectNotify()
}

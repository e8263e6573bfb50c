package acp

import (
	"context"
	"fmt"
	"path/filepath"

	sdk "github.com/coder/acp-go-sdk"
)

// Opened is the session a document talks to.
type Opened struct {
	ID     string
	Loaded bool // session/load of the previous ID succeeded: the agent has the history
	// LoadError says why the previous session was not loaded when one was
	// asked for (the agent cannot load sessions, or the load failed) and a
	// new session was started instead; nil otherwise. The session tells
	// the user: the agent does not know the conversation above.
	LoadError error
}

// Session opens the document's session: session/load of previousID when
// there is one and the agent can load sessions (session/new if that
// fails), else session/new. cwd is the workspace root, absolute. chatls
// passes no MCP servers: its tools reach the agent as client requests.
func (a *Agent) Session(ctx context.Context, cwd, previousID string) (Opened, error) {
	if !filepath.IsAbs(cwd) {
		return Opened{}, fmt.Errorf("the agent's session needs an absolute directory, not %q: pass the workspace root", cwd)
	}
	var loadErr error
	if previousID != "" {
		if !a.Caps.LoadSession {
			loadErr = fmt.Errorf("the agent %q cannot load earlier sessions (no loadSession capability); a new session does not know the conversation above", a.name)
		} else {
			_, err := call[sdk.LoadSessionResponse](ctx, a, sdk.AgentMethodSessionLoad, sdk.LoadSessionRequest{
				SessionId: sdk.SessionId(previousID), Cwd: cwd, McpServers: []sdk.McpServer{},
			})
			if err == nil {
				return Opened{ID: previousID, Loaded: true}, nil
			}
			if IsFault(err) {
				return Opened{}, err
			}
			loadErr = fmt.Errorf("the agent could not load session %s (%v); a new session does not know the conversation above", previousID, err)
		}
	}
	resp, err := call[sdk.NewSessionResponse](ctx, a, sdk.AgentMethodSessionNew, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		return Opened{}, err
	}
	return Opened{ID: string(resp.SessionId), LoadError: loadErr}, nil
}

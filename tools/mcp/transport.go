package mcp

import (
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/keyenv"
	"github.com/chatls/chatls/internal/procsup"
	"github.com/chatls/chatls/tools/plugin/stderrlog"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newTransport builds the go-sdk transport for a server entry: a command
// (stdio) or a URL (streamable HTTP). Values may reference environment
// variables as ${VAR} so that tokens stay out of config files.
func newTransport(name string, cfg config.MCPServer, stderr *stderrlog.Writer) (sdk.Transport, error) {
	switch {
	case cfg.Command != "" && cfg.URL != "":
		return nil, configError(fmt.Sprintf("MCP server %s: set either command or url, not both", name))
	case cfg.Command != "":
		cmd := exec.Command(os.ExpandEnv(cfg.Command), expandAll(cfg.Args)...)
		cmd.Env = keyenv.Environ()
		for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
			cmd.Env = append(cmd.Env, k+"="+os.ExpandEnv(cfg.Env[k]))
		}
		cmd.Stderr = stderr
		// A grandchild holding stderr open must not hang shutdown.
		cmd.WaitDelay = 2 * time.Second
		// Under a one-shot supervisor (procsup): the server and all it
		// starts end when it exits, when the source closes it (the SDK's
		// SIGTERM reaches the supervisor, which kills the whole tree) and
		// when chatls dies, by SIGKILL too.
		procsup.Prepare(cmd)
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil
	case cfg.URL != "":
		headers := make(http.Header, len(cfg.Headers))
		for k, v := range cfg.Headers {
			headers.Set(k, os.ExpandEnv(v))
		}
		return &sdk.StreamableClientTransport{
			Endpoint:   os.ExpandEnv(cfg.URL),
			HTTPClient: &http.Client{Transport: headerTransport{headers: headers, base: http.DefaultTransport}},
		}, nil
	default:
		return nil, configError(fmt.Sprintf("MCP server %s: set command (stdio) or url (streamable HTTP)", name))
	}
}

// configError is a mistake in the server's entry: retrying cannot help.
type configError string

func (e configError) Error() string { return string(e) }

func expandAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = os.ExpandEnv(a)
	}
	return out
}

// headerTransport adds the configured headers (e.g. Authorization) to every
// request, including the SSE stream the SDK opens for notifications.
type headerTransport struct {
	headers http.Header
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header[k] = v
	}
	return t.base.RoundTrip(req)
}

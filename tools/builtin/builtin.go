// Package builtin holds chatls's built-in tools (SPEC §5), one file per
// tool: each is a tools.Tool with the optional behaviours of tools/tool.go
// it has (its preview, where it runs on a target, whether a failed call may
// run again). Shared here: the schema declaration (define.go), the result
// texts (result.go), the tree walk of grep, find and ls (walk.go) and the
// remote file access of a target (remote.go).
package builtin

import (
	"net/http"
	"time"

	"github.com/chatls/chatls/tools"
)

// Options configures the built-in tools.
type Options struct {
	// WebFetchAllowHosts (tools.web_fetch.allowHosts) lists hosts, IPs or
	// CIDRs that web_fetch may reach although they are loopback, private or
	// link-local.
	WebFetchAllowHosts []string
	// HTTPClient, when set, replaces web_fetch's client entirely, including
	// its address checks (for proxies and tests that know what they do).
	HTTPClient *http.Client
	// Now replaces the clock of the time tool (tests).
	Now func() time.Time
}

// The built-ins are known by name (tools.RegisterBuiltins), the pane's
// own too.
func init() {
	tools.RegisterBuiltins(Tools(Options{})...)
	tools.RegisterBuiltins(paneTools()...)
}

// Tools returns the built-in tools of SPEC §5 plus web_fetch and time.
func Tools(opts Options) []tools.Tool {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return append([]tools.Tool{
		bashTool{},
		readTool{},
		writeTool{},
		editTool{},
		grepTool{},
		findTool{},
		lsTool{},
		mkdirTool{},
		copyTool{},
		moveTool{},
		deleteTool{},
		calculatorTool{},
		newWebFetchTool(opts.WebFetchAllowHosts, opts.HTTPClient),
		timeTool{now: now},
	}, gitTools()...)
}

// paneTools are the built-ins a target with tmux adds (PaneOnly).
func paneTools() []tools.Tool { return []tools.Tool{capturePaneTool{}, sendKeysTool{}} }

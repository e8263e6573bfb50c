package tools

import (
	"net/http"
	"time"
)

// BuiltinOptions configures the built-in tools.
type BuiltinOptions struct {
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

// The built-ins are known by name, with the pane's own (builtin_names.go).
func init() {
	RegisterBuiltins(Builtins(BuiltinOptions{})...)
	RegisterBuiltins(paneTools()...)
}

// Builtins returns the built-in tools of SPEC §5 plus web_fetch and time.
func Builtins(opts BuiltinOptions) []Tool {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return append([]Tool{
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

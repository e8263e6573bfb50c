// Package config holds chatls settings (SPEC §4 "Settings keys"): the same keys
// come from initializationOptions, workspace/configuration (section "chatls"),
// the user file $XDG_CONFIG_HOME/chatls/config.toml and .chatls.toml at the
// workspace root. Pointer fields distinguish "unset" from zero so layers merge.
package config

// Settings is one layer of configuration as the user wrote it.
type Settings struct {
	Tools            Tools      `json:"tools" toml:"tools"`
	Autopilot        *bool      `json:"autopilot,omitempty" toml:"autopilot,omitempty"`
	PlaceholderStyle string     `json:"placeholderStyle,omitempty" toml:"placeholderStyle,omitempty"` // "fence" (default) | "suffix"
	Sandbox          Sandbox    `json:"sandbox" toml:"sandbox"`
	Trust            Trust      `json:"trust" toml:"trust"`
	Resolvers        []Resolver `json:"resolvers,omitempty" toml:"resolvers,omitempty"`
	InlayHints       InlayHints `json:"inlayHints" toml:"inlayHints"`

	// Sending to a model (SPEC §7). Provider, Model and Parameters may come
	// from any layer; Providers (URLs, headers, key sources) only from
	// trusted ones.
	Provider   string                      `json:"provider,omitempty" toml:"provider,omitempty"`
	Model      string                      `json:"model,omitempty" toml:"model,omitempty"`
	Parameters map[string]any              `json:"parameters,omitempty" toml:"parameters,omitempty"`
	Providers  map[string]ProviderSettings `json:"providers,omitempty" toml:"providers,omitempty"`
	Send       SendSettings                `json:"send" toml:"send"`
	// Context is context.* (SPEC §11) and Rewind rewind.* (SPEC §10).
	Context ContextSettings `json:"context" toml:"context"`
	Rewind  RewindSettings  `json:"rewind" toml:"rewind"`
	// LSP configures the language servers of the LSP tools (trusted only:
	// they are programs).
	LSP LSPSettings `json:"lsp" toml:"lsp"`
	// Keys are the client's key names for the user's actions (advance,
	// approve, reject, approveAll, run, cancel, send, explain), e.g.
	// {"advance": "<C-]>"}, so that messages say what to press. Editors
	// pass them in initializationOptions.
	Keys map[string]string `json:"keys,omitempty" toml:"keys,omitempty"`
	// Targets are where tools may run (SPEC §8; trusted layers only) and
	// Target the one chosen.
	Targets map[string]TargetSettings `json:"targets,omitempty" toml:"targets,omitempty"`
	Target  string                    `json:"target,omitempty" toml:"target,omitempty"`

	// Lines records where list entries and rule tables were written, for
	// traces: key "tools.autoApprove=VALUE", "tools.deny=VALUE",
	// "tools.rules=RULE", "tools.presets.NAME.approve=VALUE" → 1-based line.
	// Only LoadFile fills it; JSON settings have no lines.
	Lines map[string]int `json:"-" toml:"-"`
}

// Line returns where the entry VALUE of the list at key was written (0 if unknown).
func (s Settings) Line(key, value string) int { return s.Lines[key+"="+value] }

type Tools struct {
	AutoApprove []string `json:"autoApprove,omitempty" toml:"autoApprove,omitempty"`
	// AutoApproveAppend and AutoApproveRemove modify the inherited list instead
	// of replacing it (Flemma's :append/:remove for TOML files). Applied after
	// AutoApprove: set, then remove, then append.
	AutoApproveAppend    []string             `json:"autoApproveAppend,omitempty" toml:"autoApproveAppend,omitempty"`
	AutoApproveRemove    []string             `json:"autoApproveRemove,omitempty" toml:"autoApproveRemove,omitempty"`
	Deny                 []string             `json:"deny,omitempty" toml:"deny,omitempty"`
	Presets              map[string]Preset    `json:"presets,omitempty" toml:"presets,omitempty"`
	Rules                []Rule               `json:"rules,omitempty" toml:"rules,omitempty"`
	RequireApproval      *bool                `json:"requireApproval,omitempty" toml:"requireApproval,omitempty"`
	AutoApproveSandboxed *bool                `json:"autoApproveSandboxed,omitempty" toml:"autoApproveSandboxed,omitempty"`
	Enabled              []string             `json:"enabled,omitempty" toml:"enabled,omitempty"`
	MaxConcurrent        *int                 `json:"maxConcurrent,omitempty" toml:"maxConcurrent,omitempty"`
	DefaultTimeout       *int                 `json:"defaultTimeout,omitempty" toml:"defaultTimeout,omitempty"`
	Retries              *int                 `json:"retries,omitempty" toml:"retries,omitempty"`
	Bash                 BashSettings         `json:"bash" toml:"bash"`
	WebFetch             WebFetchSettings     `json:"web_fetch" toml:"web_fetch"`
	Plugins              []Plugin             `json:"plugins,omitempty" toml:"plugins,omitempty"`
	MCPServers           map[string]MCPServer `json:"mcpServers,omitempty" toml:"mcpServers,omitempty"`
}

type Preset struct {
	Approve []string `json:"approve,omitempty" toml:"approve,omitempty"`
	Deny    []string `json:"deny,omitempty" toml:"deny,omitempty"`
}

// Rule is a `[[tools.rules]]` table.
type Rule struct {
	Rule     string   `json:"rule" toml:"rule"`
	Decision string   `json:"decision" toml:"decision"` // approve | ask | deny
	Reason   string   `json:"reason,omitempty" toml:"reason,omitempty"`
	Match    []string `json:"match,omitempty" toml:"match,omitempty"`
	NotMatch []string `json:"notMatch,omitempty" toml:"notMatch,omitempty"`
}

type BashSettings struct {
	Timeout *int   `json:"timeout,omitempty" toml:"timeout,omitempty"`
	Cwd     string `json:"cwd,omitempty" toml:"cwd,omitempty"`
}

type WebFetchSettings struct {
	AllowHosts []string `json:"allowHosts,omitempty" toml:"allowHosts,omitempty"`
}

type Plugin struct {
	Name    string            `json:"name" toml:"name"`
	Path    string            `json:"path" toml:"path"`
	Args    []string          `json:"args,omitempty" toml:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty" toml:"env,omitempty"`
	Preview string            `json:"preview,omitempty" toml:"preview,omitempty"`
}

type MCPServer struct {
	Command string            `json:"command,omitempty" toml:"command,omitempty"`
	Args    []string          `json:"args,omitempty" toml:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty" toml:"env,omitempty"`
	URL     string            `json:"url,omitempty" toml:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty" toml:"headers,omitempty"`
	// Previews maps a tool name (without the server prefix) to a text/template.
	Previews map[string]string `json:"previews,omitempty" toml:"previews,omitempty"`
}

type Sandbox struct {
	// Enabled is sandbox.enabled: true, false or "auto" (the default).
	Enabled  *SandboxMode `json:"enabled,omitempty" toml:"enabled,omitempty"`
	Writable []string     `json:"writable,omitempty" toml:"writable,omitempty"`
	Network  *bool        `json:"network,omitempty" toml:"network,omitempty"`
	// Env names more variables passed into the sandbox besides the
	// allowlist (SPEC §5); trusted layers only.
	Env []string `json:"env,omitempty" toml:"env,omitempty"`
	// Bwrap overrides the bubblewrap binary path (tests simulate a missing one).
	Bwrap string `json:"bwrap,omitempty" toml:"bwrap,omitempty"`
}

type Trust struct {
	Workspaces []string `json:"workspaces,omitempty" toml:"workspaces,omitempty"`
}

type Resolver struct {
	Name      string   `json:"name" toml:"name"`
	Command   string   `json:"command" toml:"command"`
	Args      []string `json:"args,omitempty" toml:"args,omitempty"`
	Priority  *int     `json:"priority,omitempty" toml:"priority,omitempty"`
	TimeoutMs *int     `json:"timeoutMs,omitempty" toml:"timeoutMs,omitempty"`
}

type InlayHints struct {
	MaxLength *int `json:"maxLength,omitempty" toml:"maxLength,omitempty"`
}

// ProviderSettings is a `providers.NAME` entry (SPEC §7 "Providers"). Its
// fields override a built-in entry of the same name key by key.
type ProviderSettings struct {
	Type          string                   `json:"type,omitempty" toml:"type,omitempty"` // anthropic | openai | openai-chat | gemini | vertex | script | acp
	BaseURL       string                   `json:"baseURL,omitempty" toml:"baseURL,omitempty"`
	APIKeyEnv     string                   `json:"apiKeyEnv,omitempty" toml:"apiKeyEnv,omitempty"`
	APIKeyCommand []string                 `json:"apiKeyCommand,omitempty" toml:"apiKeyCommand,omitempty"`
	Headers       map[string]string        `json:"headers,omitempty" toml:"headers,omitempty"`
	Models        map[string]ModelSettings `json:"models,omitempty" toml:"models,omitempty"`
	// Model is the entry's default model (an openai-chat server has no
	// built-in one).
	Model string `json:"model,omitempty" toml:"model,omitempty"`
	// File is a script provider's responses (relative to the settings file's
	// directory when it is a file).
	File string `json:"file,omitempty" toml:"file,omitempty"`
	// Command and Env start an external agent (type acp, SPEC §12): its
	// program and arguments, and variables added to chatls's environment.
	Command []string          `json:"command,omitempty" toml:"command,omitempty"`
	Env     map[string]string `json:"env,omitempty" toml:"env,omitempty"`
}

// ModelSettings overrides what the built-in model table says of a model.
type ModelSettings struct {
	Price         *Price `json:"price,omitempty" toml:"price,omitempty"`
	ContextWindow *int   `json:"contextWindow,omitempty" toml:"contextWindow,omitempty"`
	MaxTokens     *int   `json:"maxTokens,omitempty" toml:"maxTokens,omitempty"`
}

// Price is USD per million tokens.
type Price struct {
	Input      *float64 `json:"input,omitempty" toml:"input,omitempty"`
	Output     *float64 `json:"output,omitempty" toml:"output,omitempty"`
	CacheRead  *float64 `json:"cacheRead,omitempty" toml:"cacheRead,omitempty"`
	CacheWrite *float64 `json:"cacheWrite,omitempty" toml:"cacheWrite,omitempty"`
}

// SendSettings are the guards of a chain of sends (SPEC §7).
type SendSettings struct {
	MaxTurns   *int     `json:"maxTurns,omitempty" toml:"maxTurns,omitempty"`
	MaxCost    *float64 `json:"maxCost,omitempty" toml:"maxCost,omitempty"`
	MaxRetries *int     `json:"maxRetries,omitempty" toml:"maxRetries,omitempty"`
}

// LSPSettings is lsp.* (SPEC §5).
type LSPSettings struct {
	Servers     map[string]LSPServer `json:"servers,omitempty" toml:"servers,omitempty"`
	IdleTimeout *int                 `json:"idleTimeout,omitempty" toml:"idleTimeout,omitempty"` // seconds
	Settle      *int                 `json:"settle,omitempty" toml:"settle,omitempty"`           // milliseconds
}

// LSPServer is lsp.servers.NAME: a language server to run for file types.
type LSPServer struct {
	Command     []string       `json:"command,omitempty" toml:"command,omitempty"`
	Filetypes   []string       `json:"filetypes,omitempty" toml:"filetypes,omitempty"` // "python" (an editor's file type name), "py" or ".py"
	RootMarkers []string       `json:"rootMarkers,omitempty" toml:"rootMarkers,omitempty"`
	Settings    map[string]any `json:"settings,omitempty" toml:"settings,omitempty"`
}

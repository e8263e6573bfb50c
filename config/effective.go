package config

// Effective is the merged non-policy settings with defaults applied. The
// policy settings (autoApprove, deny, presets, rules, requireApproval,
// autoApproveSandboxed, resolvers, trust) are not merged here: the approval
// engine layers them itself, because trust decides what counts.
type Effective struct {
	Autopilot        bool
	PlaceholderStyle string // "fence" | "suffix"
	MaxConcurrent    int
	DefaultTimeout   int // seconds, non-bash tools
	Retries          int // tools.retries: repeats of a read-only call that failed transiently
	BashTimeout      int // seconds
	BashCwd          string
	// Enabled is tools.enabled: when set, exactly the tools offered to the
	// model (names and presets).
	Enabled             []string
	Plugins             []Plugin
	MCPServers          map[string]MCPServer
	WebFetchAllowHosts  []string
	Sandbox             EffectiveSandbox
	InlayHintsMaxLength int

	// Sending (SPEC §7): the chosen provider and model, the parameters
	// merged key by key (tables recursively), the trusted provider entries.
	Provider   string
	Model      string
	Parameters map[string]any
	Providers  map[string]ProviderSettings
	Send       EffectiveSend
	Context    EffectiveContext
	Rewind     EffectiveRewind
	// LSP is lsp.* from trusted layers (an untrusted file starts nothing).
	LSP LSPSettings
	// Keys are the client's key names, merged key by key.
	Keys map[string]string
	// Targets are the trusted targets; Target is the chosen one ("" local).
	Targets map[string]TargetSettings
	Target  string
	// TargetFromUntrusted is set when an untrusted workspace chose Target.
	TargetFromUntrusted bool
}

// EffectiveSend is send.* with defaults.
type EffectiveSend struct {
	MaxTurns   int
	MaxCost    float64 // USD per chain
	MaxRetries int
}

// EffectiveSandbox is sandbox.* with defaults: "auto" (on wherever
// bubblewrap starts), no network (SPEC §5).
type EffectiveSandbox struct {
	Mode SandboxMode
	// Enabled is Mode != SandboxOff: bash is meant to run inside.
	Enabled bool
	// Required is Mode == SandboxOn: bubblewrap failing to start is an
	// error, not a fallback.
	Required bool
	Writable []string
	Network  bool
	Bwrap    string
	// Env names variables passed in besides the allowlist.
	Env []string
}

// Defaults (SPEC §2, §4).
const (
	DefaultMaxConcurrent       = 4
	DefaultToolTimeout         = 30
	DefaultToolRetries         = 2
	DefaultBashTimeout         = 120
	DefaultPlaceholderStyle    = "fence"
	DefaultInlayHintsMaxLength = 80
	DefaultMaxTurns            = 100 // as Flemma
	DefaultMaxCost             = 5.0
	DefaultMaxRetries          = 4
)

// Merge layers settings: later layers override earlier ones key by key; list
// and map keys replace as a whole, except mcpServers which merge by name.
// Pass only trusted layers (or a workspace layer through UntrustedView).
func Merge(layers ...Settings) Effective {
	e := Effective{
		Autopilot:           true,
		PlaceholderStyle:    DefaultPlaceholderStyle,
		MaxConcurrent:       DefaultMaxConcurrent,
		DefaultTimeout:      DefaultToolTimeout,
		Retries:             DefaultToolRetries,
		BashTimeout:         DefaultBashTimeout,
		Sandbox:             EffectiveSandbox{Mode: SandboxAuto, Enabled: true},
		InlayHintsMaxLength: DefaultInlayHintsMaxLength,
		Send:                EffectiveSend{MaxTurns: DefaultMaxTurns, MaxCost: DefaultMaxCost, MaxRetries: DefaultMaxRetries},
		Context:             defaultContext(),
		Rewind:              defaultRewind(),
	}
	for _, l := range layers {
		setBool(&e.Autopilot, l.Autopilot)
		if l.PlaceholderStyle != "" {
			e.PlaceholderStyle = l.PlaceholderStyle
		}
		t := l.Tools
		setPositive(&e.MaxConcurrent, t.MaxConcurrent)
		setPositive(&e.DefaultTimeout, t.DefaultTimeout)
		if t.Retries != nil && *t.Retries >= 0 {
			e.Retries = *t.Retries
		}
		setPositive(&e.BashTimeout, t.Bash.Timeout)
		if t.Bash.Cwd != "" {
			e.BashCwd = t.Bash.Cwd
		}
		if t.Enabled != nil {
			e.Enabled = t.Enabled
		}
		if t.Plugins != nil {
			e.Plugins = t.Plugins
		}
		for name, srv := range t.MCPServers {
			if e.MCPServers == nil {
				e.MCPServers = map[string]MCPServer{}
			}
			e.MCPServers[name] = srv
		}
		if t.WebFetch.AllowHosts != nil {
			e.WebFetchAllowHosts = t.WebFetch.AllowHosts
		}
		if m := l.Sandbox.Enabled; m != nil && *m != "" {
			e.Sandbox.Mode = *m
			e.Sandbox.Enabled, e.Sandbox.Required = *m != SandboxOff, *m == SandboxOn
		}
		setBool(&e.Sandbox.Network, l.Sandbox.Network)
		if l.Sandbox.Env != nil {
			e.Sandbox.Env = l.Sandbox.Env
		}
		if l.Sandbox.Writable != nil {
			e.Sandbox.Writable = l.Sandbox.Writable
		}
		if l.Sandbox.Bwrap != "" {
			e.Sandbox.Bwrap = l.Sandbox.Bwrap
		}
		setPositive(&e.InlayHintsMaxLength, l.InlayHints.MaxLength)
		mergeSending(&e, l)
		mergeContextRewind(&e, l)
		for action, key := range l.Keys {
			if e.Keys == nil {
				e.Keys = map[string]string{}
			}
			e.Keys[action] = key
		}
		e.LSP = Overlay(Settings{LSP: e.LSP}, Settings{LSP: l.LSP}).LSP
		mergeTargets(&e, l)
	}
	return e
}

func mergeSending(e *Effective, l Settings) {
	if l.Provider != "" {
		e.Provider = l.Provider
	}
	if l.Model != "" {
		e.Model = l.Model
	}
	if l.Parameters != nil {
		e.Parameters = mergeTables(e.Parameters, l.Parameters)
	}
	if l.Providers != nil {
		merged := Overlay(Settings{Providers: e.Providers}, Settings{Providers: l.Providers})
		e.Providers = merged.Providers
	}
	setPositive(&e.Send.MaxTurns, l.Send.MaxTurns)
	if l.Send.MaxCost != nil && *l.Send.MaxCost >= 0 {
		e.Send.MaxCost = *l.Send.MaxCost
	}
	if l.Send.MaxRetries != nil && *l.Send.MaxRetries >= 0 {
		e.Send.MaxRetries = *l.Send.MaxRetries
	}
}

// mergeTables overlays b on a key by key, tables recursively (Flemma's
// parameters.anthropic.* merge into the inherited table); a copy.
func mergeTables(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		sub, isTable := v.(map[string]any)
		old, wasTable := out[k].(map[string]any)
		if isTable && wasTable {
			out[k] = mergeTables(old, sub)
		} else {
			out[k] = v
		}
	}
	return out
}

// narrowSend keeps an untrusted workspace from raising the guards the
// user's own settings give.
func narrowSend(ws, user EffectiveSend) EffectiveSend {
	return EffectiveSend{
		MaxTurns:   min(ws.MaxTurns, user.MaxTurns),
		MaxCost:    min(ws.MaxCost, user.MaxCost),
		MaxRetries: min(ws.MaxRetries, user.MaxRetries),
	}
}

// UntrustedView keeps only what a workspace file outside trust.workspaces may
// set: display preferences and narrowing switches. Programs (plugins, MCP
// servers, resolvers), trust, sandbox widening and approval switches are
// dropped, because a cloned repository must not run or approve anything.
func UntrustedView(s Settings) Settings {
	out := Settings{
		PlaceholderStyle: s.PlaceholderStyle,
		InlayHints:       s.InlayHints,
		Lines:            s.Lines,
	}
	// A document's choice among configured providers, never where they are.
	out.Provider, out.Model, out.Parameters = s.Provider, s.Model, s.Parameters
	out.Send = s.Send     // narrowed against the user's in Resolve
	out.Target = s.Target // a choice among the user's targets (checked: untrusted = true)
	out.Tools.MaxConcurrent = s.Tools.MaxConcurrent
	out.Tools.DefaultTimeout = s.Tools.DefaultTimeout
	out.Tools.Retries = s.Tools.Retries // only read-only calls repeat
	out.Tools.Bash.Timeout = s.Tools.Bash.Timeout
	if s.Tools.RequireApproval != nil && *s.Tools.RequireApproval {
		out.Tools.RequireApproval = s.Tools.RequireApproval
	}
	if s.Autopilot != nil && !*s.Autopilot {
		out.Autopilot = s.Autopilot
	}
	// The sandbox may be asked for (true, "auto"), never turned off.
	if m := s.Sandbox.Enabled; m != nil && *m != SandboxOff {
		out.Sandbox.Enabled = s.Sandbox.Enabled
	}
	if s.Sandbox.Network != nil && !*s.Sandbox.Network {
		out.Sandbox.Network = s.Sandbox.Network
	}
	// Policy lists stay: the approval engine ignores their additions itself.
	out.Tools.AutoApprove = s.Tools.AutoApprove
	out.Tools.AutoApproveAppend = s.Tools.AutoApproveAppend
	out.Tools.AutoApproveRemove = s.Tools.AutoApproveRemove
	out.Tools.Deny = s.Tools.Deny
	out.Tools.Presets = s.Tools.Presets
	out.Tools.Rules = s.Tools.Rules
	return out
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

func setPositive(dst *int, v *int) {
	if v != nil && *v > 0 {
		*dst = *v
	}
}

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
}

// EffectiveSandbox is sandbox.* with defaults (off, network allowed).
type EffectiveSandbox struct {
	Enabled  bool
	Writable []string
	Network  bool
	Bwrap    string
}

// Defaults (SPEC §2, §4).
const (
	DefaultMaxConcurrent       = 4
	DefaultToolTimeout         = 30
	DefaultBashTimeout         = 120
	DefaultPlaceholderStyle    = "fence"
	DefaultInlayHintsMaxLength = 80
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
		BashTimeout:         DefaultBashTimeout,
		Sandbox:             EffectiveSandbox{Network: true},
		InlayHintsMaxLength: DefaultInlayHintsMaxLength,
	}
	for _, l := range layers {
		setBool(&e.Autopilot, l.Autopilot)
		if l.PlaceholderStyle != "" {
			e.PlaceholderStyle = l.PlaceholderStyle
		}
		t := l.Tools
		setPositive(&e.MaxConcurrent, t.MaxConcurrent)
		setPositive(&e.DefaultTimeout, t.DefaultTimeout)
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
		setBool(&e.Sandbox.Enabled, l.Sandbox.Enabled)
		setBool(&e.Sandbox.Network, l.Sandbox.Network)
		if l.Sandbox.Writable != nil {
			e.Sandbox.Writable = l.Sandbox.Writable
		}
		if l.Sandbox.Bwrap != "" {
			e.Sandbox.Bwrap = l.Sandbox.Bwrap
		}
		setPositive(&e.InlayHintsMaxLength, l.InlayHints.MaxLength)
	}
	return e
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
	out.Tools.MaxConcurrent = s.Tools.MaxConcurrent
	out.Tools.DefaultTimeout = s.Tools.DefaultTimeout
	out.Tools.Bash.Timeout = s.Tools.Bash.Timeout
	if s.Tools.RequireApproval != nil && *s.Tools.RequireApproval {
		out.Tools.RequireApproval = s.Tools.RequireApproval
	}
	if s.Autopilot != nil && !*s.Autopilot {
		out.Autopilot = s.Autopilot
	}
	if s.Sandbox.Enabled != nil && *s.Sandbox.Enabled {
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

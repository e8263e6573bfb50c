// Package approval decides whether a tool call may run (SPEC §4): presets,
// rules, shell analysis, the resolver chain and the trace that explains it.
// It is pure policy: no LSP types, no execution.
package approval

// Decision is a resolver's answer.
type Decision string

const (
	Approve         Decision = "approve"
	RequireApproval Decision = "require_approval"
	Deny            Decision = "deny"
	Pass            Decision = "pass"
)

// Call is the tool call being decided.
type Call struct {
	ID    string
	Tool  string
	Input map[string]any
	// DocPath is the absolute path of the .chat document ("" for none).
	DocPath string
	// DocURI is the document's URI, passed to external resolvers.
	DocURI string
	// WorkspaceRoot is the workspace folder holding the document (else its directory).
	WorkspaceRoot string
}

// Step is one resolver's contribution to a decision, for traces.
type Step struct {
	Resolver string   `json:"resolver"` // "user", "workspace", "frontmatter", "external:NAME", "sandbox", "catch-all", "default"
	Priority int      `json:"priority"`
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
	Rule     string   `json:"rule,omitempty"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"` // 1-based; 0 when unknown
	// Ignored explains why an untrusted approval counted as pass.
	Ignored string `json:"ignored,omitempty"`
}

// Verdict is the final decision with its trace.
type Verdict struct {
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason"`
	Steps    []Step   `json:"steps"`
}

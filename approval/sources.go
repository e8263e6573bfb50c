package approval

import "github.com/chatls/chatls/config"

// Sources is everything the policy for one document comes from.
type Sources struct {
	// User is the editor settings merged over the user file (trusted).
	User     config.Settings
	UserFile string
	// Workspace is .chatls.toml; trusted only when WorkspaceRoot matches a
	// trust.workspaces glob of the user layer.
	Workspace     config.Settings
	WorkspaceFile string
	// WorkspaceRoot decides trust; Call.WorkspaceRoot overrides it for paths.
	// Empty: the directory of WorkspaceFile, else of DocPath.
	WorkspaceRoot string
	// Frontmatter are the document's option changes, trusted like the workspace.
	Frontmatter []FrontmatterOp
	// FrontmatterError is set when the frontmatter could not be evaluated to
	// the end (chatdoc.Frontmatter.Error): Frontmatter then holds only what
	// ran before the failure, so the document's intent is unknown — a
	// removal or deny after the failure is missing. The engine ignores the
	// frontmatter's approvals and asks for every call; denies still apply.
	FrontmatterError string
	// WorkspaceError is set when the workspace's .chatls.toml could not be
	// loaded (WorkspaceFile names it): the user's own rules still decide —
	// a user deny still denies — but nothing else is approved, since the
	// broken file's denies and removals are unknown; every other call asks.
	WorkspaceError string
	DocPath        string
	// BashCwd, when set, is the effective tools.bash.cwd (else it is read
	// from User and a trusted Workspace): where bash runs, relative to the
	// document's directory.
	BashCwd string
	// SandboxActive is whether bash would run inside bubblewrap right now.
	SandboxActive bool
	// Home overrides the home directory (tests); empty: os.UserHomeDir.
	Home string
	// TempDir overrides $TMPDIR (tests); empty: $TMPDIR or /tmp.
	TempDir string
	// Target, when set, is the remote target the calls run on (SPEC §8).
	Target *TargetPolicy
	// lexical resolves paths without this machine's filesystem (set for
	// a remote target, whose symlinks are not here).
	lexical bool
}

// TargetPolicy is a remote target's own lists (SPEC §8 "Policy").
type TargetPolicy struct {
	Name        string
	Root        string // where relative paths resolve on the target
	AutoApprove []string
	Deny        []string
}

// FrontmatterOp mirrors chatdoc.OptionOp: Path like "tools.auto_approve",
// Op one of set|append|prepend|remove, Line 0-based as chatdoc reports it.
type FrontmatterOp struct {
	Path   string
	Op     string
	Values []any
	Line   int
}

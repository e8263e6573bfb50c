package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/chatls/chatls/config"
)

// CheckRequest is `chatls policy check TOOL 'JSON-INPUT' [--file DOC] [--config FILE]`.
type CheckRequest struct {
	Tool  string
	Input string // JSON object
	// DocPath is the .chat document (frontmatter and relative paths); optional.
	DocPath string
	// ConfigPath replaces the user config file; empty: config.UserConfigPath().
	ConfigPath string
	// WorkspaceRoot holds .chatls.toml; empty: the current directory.
	WorkspaceRoot string
	Frontmatter   []FrontmatterOp
	// FrontmatterError: see Sources.FrontmatterError.
	FrontmatterError string
	// Target names the target the call runs on (SPEC §8); empty: this machine.
	Target string
	Logger *zap.Logger
}

// CheckCommand decides one call the way the server would, from files only.
// Warnings (unknown keys…) come back for the caller to print. A broken
// configuration is not an error: the answer is require_approval (what the
// server does without a good configuration) with the problem in the trace;
// the error is only for input that is not a JSON object.
func CheckCommand(ctx context.Context, req CheckRequest) (Verdict, []config.Warning, error) {
	var input map[string]any
	if err := json.Unmarshal([]byte(req.Input), &input); err != nil || input == nil {
		return Verdict{}, nil, fmt.Errorf("the input must be a JSON object, e.g. '{\"command\": \"go test ./...\"}'")
	}
	root := req.WorkspaceRoot
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Verdict{}, nil, fmt.Errorf("find the current directory: %w", err)
		}
		root = wd
	}
	root, _ = filepath.Abs(root)
	userFile := req.ConfigPath
	if userFile == "" {
		userFile = config.UserConfigPath()
	}
	user, warns, err := config.LoadFile(userFile)
	if err != nil {
		return configErrorVerdict(err), warns, nil
	}
	wsFile := filepath.Join(root, config.WorkspaceFile)
	ws, w2, wsErr := config.LoadFile(wsFile)
	warns = append(warns, w2...)
	wsError := ""
	if wsErr != nil {
		// The user's own rules still decide (a user deny still denies).
		ws, wsError = config.Settings{}, wsErr.Error()
	}
	target, err := checkTarget(req.Target, user, ws, root)
	if err != nil {
		return Verdict{}, warns, err
	}
	doc := req.DocPath
	if doc != "" {
		doc, _ = filepath.Abs(doc)
	}
	e, err := NewEngine(Sources{
		User: user, UserFile: userFile, Workspace: ws, WorkspaceFile: wsFile,
		WorkspaceRoot: root, DocPath: doc, Frontmatter: req.Frontmatter, FrontmatterError: req.FrontmatterError,
		WorkspaceError: wsError, Target: target,
	}, req.Logger)
	if err != nil {
		return configErrorVerdict(err), warns, nil
	}
	for _, w := range e.Warnings() {
		warns = append(warns, config.Warning{Message: w})
	}
	v := e.Decide(ctx, Call{ID: "cli", Tool: req.Tool, Input: input, DocPath: doc, WorkspaceRoot: root})
	return v, warns, nil
}

// ConfigErrorResolver names the trace step of a configuration that could not be loaded.
const ConfigErrorResolver = "config"

// configErrorVerdict is the decision when the configuration can't be used.
func configErrorVerdict(err error) Verdict {
	return Verdict{Decision: RequireApproval, Reason: "the configuration could not be loaded",
		Steps: []Step{{Resolver: ConfigErrorResolver, Priority: 1000, Decision: RequireApproval,
			Reason: "the configuration could not be loaded, so every call asks: " + err.Error()}}}
}

// checkTarget is the policy of target name as the server would use it:
// defined in the user's settings or a trusted workspace's; nil for this
// machine (no name, or the local target, which keeps the local rules).
func checkTarget(name string, user, ws config.Settings, root string) (*TargetPolicy, error) {
	if name == "" {
		return nil, nil
	}
	targets := user.Targets
	if TrustedRoot(user.Trust, root) {
		targets = config.Merge(user, ws).Targets
	}
	ts, ok := targets[name]
	switch {
	case !ok && name == "local":
		return nil, nil
	case !ok:
		return nil, fmt.Errorf("target %s is not defined in your trusted settings (targets.%s)", name, name)
	case ts.Type == "local":
		return nil, nil
	}
	return &TargetPolicy{Name: name, Root: ts.Root, AutoApprove: ts.AutoApprove, Deny: ts.Deny}, nil
}

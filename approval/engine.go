package approval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/chatls/chatls/config"
)

// Engine decides tool calls for one document's policy sources. It is
// immutable after NewEngine and safe for concurrent use; build a new one
// when a source changes.
type Engine struct {
	src     Sources
	log     *zap.Logger
	rules   *ruleSet
	trusted bool
	home    string
	tmp     string
	root    string // canonical workspace root from Sources
	ext     []*externalResolver
	// configDirs hold the user's chatls configuration: writing there
	// rewrites the policy, so they are sensitive paths.
	configDirs []configDir
	// pinned is the callEnv for the engine's own document and root, made
	// canonical once when the engine is built: the directories a call is
	// judged against can't be moved (a symlink swapped in) afterwards, and
	// a decision does not re-resolve them.
	pinned             *callEnv
	pinDoc, pinRootRaw string
}

// NewEngine compiles the sources. Errors name file:line and what to fix;
// the caller should keep its previous engine when one is returned.
func NewEngine(src Sources, logger *zap.Logger) (*Engine, error) {
	if logger == nil {
		logger = zap.NewNop()
	}
	if src.Target != nil {
		src = targetSources(src)
	}
	e := &Engine{src: src, log: logger, home: src.Home, tmp: src.TempDir}
	if e.home == "" {
		e.home, _ = os.UserHomeDir()
	}
	if e.tmp == "" {
		e.tmp = os.Getenv("TMPDIR")
	}
	if e.tmp == "" {
		e.tmp = "/tmp"
	}
	root := src.WorkspaceRoot
	if root == "" && src.WorkspaceFile != "" {
		root = filepath.Dir(src.WorkspaceFile)
	}
	if root == "" && src.DocPath != "" {
		root = filepath.Dir(src.DocPath)
	}
	if root != "" {
		e.root = e.canon(root, "/", e.home)
	}
	e.trusted = trustedRoot(e.root, src.User.Trust.Workspaces, e.home)
	e.configDirs = []configDir{{path: canonicalPath(filepath.Dir(config.UserConfigPath()), "/", e.home), token: "chatls/"}}
	if filepath.IsAbs(src.UserFile) {
		e.configDirs = append(e.configDirs, configDir{path: canonicalPath(src.UserFile, "/", e.home), token: strings.ToLower(filepath.Base(src.UserFile))})
	}

	set := &ruleSet{requireApproval: true}
	presets := builtinPresets()
	b := &layerBuilder{set: set, presets: presets, home: e.home}
	var errs []error
	defaults, _, _ := b.expandAll(defaultAutoApprove, origin{layer: layerUser, file: "built-in default", trusted: true}, nil)
	if !src.lexical {
		set.approve = defaults // a target approves only what its own list says
	}

	for name, p := range src.User.Tools.Presets {
		presets[name] = p
	}
	errs = append(errs, b.applySettings(src.User, origin{layer: layerUser, file: src.UserFile, trusted: true})...)
	if src.Target != nil {
		ts, o := targetLayer(src.Target, src.UserFile)
		errs = append(errs, b.applySettings(ts, o)...)
	}
	if e.trusted {
		for name, p := range src.Workspace.Tools.Presets {
			presets[name] = p
		}
	}
	wsFile := src.WorkspaceFile
	if wsFile == "" {
		wsFile = config.WorkspaceFile
	}
	errs = append(errs, b.applySettings(src.Workspace, origin{layer: layerWorkspace, file: wsFile, trusted: e.trusted})...)
	b.applyFrontmatter(src.Frontmatter, src.DocPath, e.trusted && src.FrontmatterError == "")
	for _, r := range set.resolvers {
		x, err := newExternalResolver(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		e.ext = append(e.ext, x)
	}
	e.rules = set
	e.pinDoc, e.pinRootRaw = src.DocPath, root
	env := e.resolveEnv(Call{DocPath: src.DocPath, WorkspaceRoot: root})
	e.pinned = &env
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return e, nil
}

// Trusted reports whether the workspace (and so frontmatter) is trusted.
func (e *Engine) Trusted() bool { return e.trusted }

// Warnings are problems that did not stop the engine (bad frontmatter entries).
func (e *Engine) Warnings() []string { return e.rules.warnings }

// RequireApproval is the effective tools.requireApproval.
func (e *Engine) RequireApproval() bool { return e.rules.requireApproval }

// Decide runs the resolver chain: every resolver answers, steps are ordered
// by priority, any deny wins, else the first non-pass, else
// require_approval. It never panics.
func (e *Engine) Decide(ctx context.Context, call Call) (v Verdict) {
	call.Tool = CanonicalTool(call.Tool)
	if e == nil || e.rules == nil {
		return Verdict{Decision: RequireApproval, Reason: "no policy is loaded",
			Steps: []Step{{Resolver: "default", Decision: RequireApproval, Reason: "no policy is loaded (NewEngine was not used)"}}}
	}
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("policy engine panicked; asking the user", zap.Any("panic", r), zap.String("tool", call.Tool))
			v = Verdict{Decision: RequireApproval, Reason: "the policy engine failed on this call; approve it by hand",
				Steps: []Step{{Resolver: "default", Decision: RequireApproval, Reason: fmt.Sprint("internal error: ", r)}}}
		}
	}()
	env := e.callEnv(call)
	ev := e.evaluateRules(call, env)
	steps := append([]Step{}, ev.steps...)
	if !hasDeny(steps) {
		steps = append(steps, e.runExternal(ctx, call, env)...)
	}
	steps = append(steps, e.guarded("sandbox", func() Step { return e.sandboxStep(call) }))
	steps = append(steps, e.guarded("catch-all", func() Step { return e.catchAllStep(call) }))
	if dangerousTools[call.Tool] {
		// Said in every trace (hover, explain, the decision log), whatever decided.
		steps = append(steps, Step{Resolver: "dangerous", Decision: Pass,
			Reason: call.Tool + " is dangerous: only a rule that names it approves it (never a preset, a wildcard or the sandbox)"})
	}
	if e.src.FrontmatterError != "" {
		steps = append(steps, e.frontmatterErrorStep())
	}
	if e.src.WorkspaceError != "" {
		steps = append(steps, Step{Resolver: WorkspaceErrorResolver, Priority: 1000, Decision: RequireApproval, File: e.src.WorkspaceFile,
			Reason: "the workspace configuration could not be loaded (" + e.src.WorkspaceError + "): only your own rules decide, and a call they do not deny asks until it is fixed"})
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Priority > steps[j].Priority })
	return finalVerdict(steps)
}

// guarded runs one resolver; a panic makes it pass and is logged.
func (e *Engine) guarded(name string, f func() Step) (s Step) {
	defer func() {
		if r := recover(); r != nil {
			e.log.Error("resolver panicked; skipping it", zap.String("resolver", name), zap.Any("panic", r))
			s = Step{Resolver: name, Decision: Pass, Reason: fmt.Sprintf("skipped: resolver failed (%v)", r)}
		}
	}()
	return f()
}

func hasDeny(steps []Step) bool {
	for _, s := range steps {
		if s.Decision == Deny {
			return true
		}
	}
	return false
}

func finalVerdict(steps []Step) Verdict {
	for _, s := range steps {
		if s.Decision == Deny {
			return Verdict{Decision: Deny, Reason: stepSummary(s), Steps: steps}
		}
	}
	for _, s := range steps {
		if s.Decision != Pass && s.Decision != "" {
			return Verdict{Decision: s.Decision, Reason: stepSummary(s), Steps: steps}
		}
	}
	steps = append(steps, Step{Resolver: "default", Priority: -1, Decision: RequireApproval, Reason: "no rule approves this call, so it asks you"})
	return Verdict{Decision: RequireApproval, Reason: "no rule approves this call", Steps: steps}
}

func stepSummary(s Step) string {
	out := s.Resolver
	if s.Reason != "" {
		out += ": " + s.Reason
	}
	return out
}

func (e *Engine) sandboxStep(call Call) Step {
	s := Step{Resolver: "sandbox", Priority: 25, Decision: Pass}
	switch {
	case call.Tool != "bash":
		s.Reason = "only decides bash"
	case !e.src.SandboxActive:
		s.Reason = "the sandbox is off or bubblewrap is unavailable"
	case !e.rules.sandboxed:
		s.Reason = "tools.autoApproveSandboxed is off"
	default:
		s.Decision = Approve
		s.Reason = "bash runs inside the bubblewrap sandbox (tools.autoApproveSandboxed)"
	}
	return s
}

// frontmatterErrorStep outranks every approval (a deny still wins): with a
// frontmatter that failed part-way, nobody knows what the document meant to
// allow.
func (e *Engine) frontmatterErrorStep() Step {
	return Step{Resolver: FrontmatterErrorResolver, Priority: 1000, Decision: RequireApproval, File: e.src.DocPath, Line: 1,
		Reason: "the frontmatter could not be evaluated (" + e.src.FrontmatterError + "): its approvals are ignored and every call asks until it is fixed"}
}

// WorkspaceErrorResolver names the trace step of a .chatls.toml that failed.
const WorkspaceErrorResolver = "workspace-config"

// FrontmatterErrorResolver names the trace step of a frontmatter that failed.
const FrontmatterErrorResolver = "frontmatter"

func (e *Engine) catchAllStep(call Call) Step {
	if e.rules.requireApproval {
		return Step{Resolver: "catch-all", Priority: 0, Decision: Pass, Reason: "tools.requireApproval is on"}
	}
	if dangerousTools[call.Tool] {
		// SPEC §5: only a rule naming a dangerous tool approves it; the
		// catch-all is no rule.
		return Step{Resolver: "catch-all", Priority: 0, Decision: Pass,
			Reason: "tools.requireApproval = false, but " + call.Tool + " is dangerous: it needs a rule that names it"}
	}
	return Step{Resolver: "catch-all", Priority: 0, Decision: Approve, Reason: "tools.requireApproval = false"}
}

// callEnv is the directories a call is judged against, all canonical.
type callEnv struct {
	root, docDir string
	// bashDir is where bash runs: tools.bash.cwd (relative to the
	// document's directory) or the document's directory (SPEC §5). A bash
	// command's relative paths are judged against it.
	bashDir     string
	read, write []string
}

// bashCwd is the effective tools.bash.cwd: the user layers', overridden by a
// trusted .chatls.toml (as config.Merge does for the tool runner).
func (e *Engine) bashCwd() string {
	cwd := e.src.User.Tools.Bash.Cwd
	if e.trusted && e.src.Workspace.Tools.Bash.Cwd != "" {
		cwd = e.src.Workspace.Tools.Bash.Cwd
	}
	if e.src.BashCwd != "" {
		cwd = e.src.BashCwd
	}
	return cwd
}

func (e *Engine) callEnv(call Call) callEnv {
	if e.pinned != nil && (call.DocPath == "" || call.DocPath == e.pinDoc) &&
		(call.WorkspaceRoot == "" || call.WorkspaceRoot == e.pinRootRaw) {
		return *e.pinned
	}
	return e.resolveEnv(call)
}

func (e *Engine) resolveEnv(call Call) callEnv {
	var env callEnv
	if e.src.lexical {
		// On a target only its root counts: the document's directory and
		// this machine's directories (temp, writable) are not there. No
		// root: relative paths are inside nothing.
		env.root, env.docDir, env.bashDir = e.root, e.root, e.root
		env.read, env.write = []string{e.root}, []string{e.root}
		return env
	}
	docPath := call.DocPath
	if docPath == "" {
		docPath = e.src.DocPath
	}
	if call.WorkspaceRoot != "" {
		env.root = e.canon(call.WorkspaceRoot, "/", e.home)
	} else {
		env.root = e.root
	}
	if docPath != "" {
		env.docDir = e.canon(filepath.Dir(docPath), "/", e.home)
	}
	if env.root == "" {
		env.root = env.docDir
	}
	if env.root == "" {
		if wd, err := os.Getwd(); err == nil {
			env.root = e.canon(wd, "/", e.home)
		}
	}
	if env.docDir == "" {
		env.docDir = env.root
	}
	env.bashDir = env.docDir
	if cwd := e.bashCwd(); cwd != "" && env.docDir != "" {
		// "" when it can't be resolved: every relative path is then unknown.
		env.bashDir = e.canon(cwd, env.docDir, e.home)
	}
	env.read = []string{env.root, env.docDir}
	env.write = []string{env.root, env.docDir, e.canon(e.tmp, "/", e.home)}
	for _, w := range e.rules.writable {
		env.write = append(env.write, e.canon(w, env.root, e.home))
	}
	return env
}

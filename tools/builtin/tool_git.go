package builtin

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chatls/chatls/tools"
)

// The git tools of SPEC §5: the real git, argv only (never a shell string,
// never a -c or an option from the model), in the repository holding path.

type gitTool struct {
	name string
	def  func() tools.Definition
	run  func(ctx context.Context, g gitRepo, in map[string]any) tools.Result
	// preview is the call's preview detail; effect (may be nil) what it
	// would change; readOnly (may be nil) whether it only looks.
	preview  func(in map[string]any) string
	effect   func(ctx context.Context, g gitRepo, in map[string]any) string
	readOnly func(in map[string]any) bool
}

func (t gitTool) Definition() tools.Definition { return t.def() }

func (t gitTool) Preview(in map[string]any) string { return t.preview(in) }

// RetrySafe: the git tools that only look.
func (t gitTool) RetrySafe(in map[string]any) bool { return t.readOnly != nil && t.readOnly(in) }

func (t gitTool) Run(ctx context.Context, call tools.Call, env tools.Env) tools.Result {
	shown, _ := tools.StringArg(call.Input, "path")
	g, err := findRepo(ctx, env, shown)
	if err != nil {
		return errorResult("%v", err)
	}
	for _, key := range []string{"ref", "name", "from", "remote", "branch"} {
		if v, _ := tools.StringArg(call.Input, key); strings.HasPrefix(v, "-") {
			return errorResult("%s %q must not start with '-' (it would be read as an option)", key, v)
		}
	}
	return t.run(ctx, g, call.Input)
}

// gitTools are the git built-ins.
func gitTools() []tools.Tool {
	return []tools.Tool{
		gitTool{name: "git_status", def: gitStatusDef, run: gitStatus, preview: pathRefPreview, readOnly: always},
		gitTool{name: "git_diff", def: gitDiffDef, run: gitDiff, preview: pathRefPreview, readOnly: always},
		gitTool{name: "git_log", def: gitLogDef, run: gitLog, preview: pathRefPreview, readOnly: always},
		gitTool{name: "git_branch", def: gitBranchDef, run: gitBranch, preview: branchPreview, effect: branchEffect, readOnly: listsBranches},
		gitTool{name: "git_commit", def: gitCommitDef, run: gitCommit, preview: commitPreview, effect: commitEffect},
		gitTool{name: "git_push", def: gitPushDef, run: gitPush, preview: pushPreview, effect: pushEffect},
	}
}

// GitTool says whether a tool is one of the git built-ins (offered only
// for documents inside a git repository).
func GitTool(name string) bool { return strings.HasPrefix(name, "git_") }

// InGitRepository says whether dir is inside a git work tree.
func InGitRepository(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

func repoPath() property {
	return optional("path", "string", "A file or directory inside the repository (default: the document's directory)")
}

var (
	gitStatusDef = define(tools.Definition{Name: "git_status", Annotations: readOnly(),
		Description: "The repository's status: branch, upstream and changed files (git status --porcelain=v2 --branch)."},
		repoPath())
	gitDiffDef = define(tools.Definition{Name: "git_diff", Annotations: readOnly(),
		Description: "Unified diff of the working tree (or of the staged changes, or against a ref)."},
		repoPath(),
		optional("staged", "boolean", "Diff the staged changes (default false)"),
		optional("ref", "string", "Compare against this commit, branch or tag"))
	gitLogDef = define(tools.Definition{Name: "git_log", Annotations: readOnly(),
		Description: "Recent commits, one line each: short hash, date, author, subject."},
		repoPath(),
		optional("limit", "integer", "How many commits (default 20)").with("minimum", 1),
		optional("ref", "string", "Start from this commit, branch or tag (default HEAD)"))
	gitBranchDef = define(tools.Definition{Name: "git_branch",
		Description: "List branches, or create one (create: true, name, optional start point from)."},
		repoPath(),
		optional("name", "string", "The branch to create"),
		optional("create", "boolean", "Create the branch name (default false: list)"),
		optional("from", "string", "Start point of the new branch (default HEAD)"))
	gitCommitDef = define(tools.Definition{Name: "git_commit", Annotations: destructive(),
		Description: "Stage exactly the given files and commit them with the message."},
		repoPath(),
		required("message", "string", "The commit message"),
		required("files", "array", "Files to stage and commit, relative to the repository root").
			with("items", map[string]any{"type": "string"}).with("minItems", 1))
	gitPushDef = define(tools.Definition{Name: "git_push", Annotations: destructive(),
		Description: "Push a branch to a remote. force uses --force-with-lease."},
		repoPath(),
		optional("remote", "string", "The remote (default origin)"),
		optional("branch", "string", "The branch (default the current one)"),
		optional("force", "boolean", "Force with lease (default false)"))
)

// gitRepo is the work tree a call runs in.
type gitRepo struct{ top string }

func findRepo(ctx context.Context, env tools.Env, shown string) (gitRepo, error) {
	dir := env.Dir
	if shown != "" {
		dir = env.ReadPath(shown)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	out, err := runGit(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return gitRepo{}, fmt.Errorf("%s is not inside a git repository", cmp.Or(shown, dir))
	}
	top := strings.TrimSpace(out)
	if err := checkGitDir(top, cmp.Or(env.WorkspaceRoot, env.Dir)); err != nil {
		return gitRepo{}, err
	}
	return gitRepo{top: top}, nil
}

// runGit runs git with argv in dir, with every configuration that starts a
// program neutralised (tool_git_safety.go), without the user's pager, prompts,
// GIT_* variables or provider keys; the error carries git's own message.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	return runGitWith(ctx, dir, nil, args...)
}

// runGitWith is runGit with more -c options after the neutral ones.
func runGitWith(ctx context.Context, dir string, config []string, args ...string) (string, error) {
	argv := append(append(append([]string{"-C", dir}, gitNeutral...), gitDriverOverrides(ctx, dir)...), config...)
	cmd := exec.CommandContext(ctx, "git", append(argv, args...)...)
	cmd.Env = gitEnviron()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.String(), errors.New(msg)
	}
	return out.String(), nil
}

func gitResult(out string, err error, empty string) tools.Result {
	if err != nil {
		return errorResult("git: %v", err)
	}
	if strings.TrimSpace(out) == "" {
		return tools.Result{Text: empty}
	}
	return tools.Result{Text: strings.TrimRight(out, "\n")}
}

func gitStatus(ctx context.Context, g gitRepo, _ map[string]any) tools.Result {
	out, err := runGit(ctx, g.top, "status", "--porcelain=v2", "--branch")
	return gitResult(out, err, "")
}

func gitDiff(ctx context.Context, g gitRepo, in map[string]any) tools.Result {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv"}
	if staged, _ := in["staged"].(bool); staged {
		args = append(args, "--staged")
	}
	if ref, _ := tools.StringArg(in, "ref"); ref != "" {
		args = append(args, ref)
	}
	out, err := runGit(ctx, g.top, append(args, "--")...)
	return gitResult(out, err, "No changes.")
}

func gitLog(ctx context.Context, g gitRepo, in map[string]any) tools.Result {
	limit := 20
	if n, ok := tools.IntArg(in, "limit"); ok && n > 0 {
		limit = n
	}
	args := []string{"log", "-n", strconv.Itoa(limit), "--no-color", "--no-ext-diff", "--no-textconv", "--date=short", "--format=%h %ad %an: %s"}
	if ref, _ := tools.StringArg(in, "ref"); ref != "" {
		args = append(args, ref)
	}
	out, err := runGit(ctx, g.top, append(args, "--")...)
	return gitResult(out, err, "No commits.")
}

func gitBranch(ctx context.Context, g gitRepo, in map[string]any) tools.Result {
	if create, _ := in["create"].(bool); !create {
		out, err := runGit(ctx, g.top, "branch", "--list", "--no-color", "--format=%(if)%(HEAD)%(then)* %(else)  %(end)%(refname:short) %(objectname:short)")
		return gitResult(out, err, "No branches yet.")
	}
	name, _ := tools.StringArg(in, "name")
	if name == "" {
		return errorResult("create needs a name")
	}
	if _, err := runGit(ctx, g.top, "check-ref-format", "--branch", name); err != nil {
		return errorResult("%q is not a valid branch name", name)
	}
	args := []string{"branch", name}
	if from, _ := tools.StringArg(in, "from"); from != "" {
		args = append(args, from)
	}
	if _, err := runGit(ctx, g.top, args...); err != nil {
		return errorResult("git: %v", err)
	}
	return tools.Result{Text: "Created branch " + name}
}

func gitCommit(ctx context.Context, g gitRepo, in map[string]any) tools.Result {
	msg, _ := tools.StringArg(in, "message")
	files := stringList(in["files"])
	if strings.TrimSpace(msg) == "" || len(files) == 0 {
		return errorResult("git_commit needs a message and at least one file")
	}
	if _, err := runGit(ctx, g.top, append([]string{"add", "--"}, files...)...); err != nil {
		return errorResult("git add: %v", err)
	}
	out, err := runGit(ctx, g.top, append([]string{"commit", "--only", "-m", msg, "--"}, files...)...)
	if err != nil {
		return errorResult("git commit: %v", err)
	}
	return tools.Result{Text: strings.TrimRight(out, "\n")}
}

func gitPush(ctx context.Context, g gitRepo, in map[string]any) tools.Result {
	remote, branch, err := g.pushTarget(ctx, in)
	if err != nil {
		return errorResult("%v", err)
	}
	args := []string{"push", "--porcelain"}
	if force, _ := in["force"].(bool); force {
		args = append(args, "--force-with-lease")
	}
	out, err := runGitWith(ctx, g.top, userCredentialHelpers(ctx), append(args, remote, branch)...)
	if err != nil {
		return errorResult("git push: %v", err)
	}
	return tools.Result{Text: strings.TrimRight(out, "\n")}
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// pushTarget is the remote (default origin) and branch (default the
// current one) a push goes to.
func (g gitRepo) pushTarget(ctx context.Context, in map[string]any) (remote, branch string, err error) {
	remote, _ = tools.StringArg(in, "remote")
	branch, _ = tools.StringArg(in, "branch")
	if branch == "" {
		out, err := runGit(ctx, g.top, "symbolic-ref", "--short", "HEAD")
		if err != nil {
			return "", "", errors.New("no branch to push (detached HEAD): name one in branch")
		}
		branch = strings.TrimSpace(out)
	}
	return cmp.Or(remote, "origin"), branch, nil
}

package builtin

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/chatls/chatls/tools"
)

// Effect of the git tools that change something: the files and their
// +/- counts a commit takes, the commits a push sends, the start point of
// a new branch.
func (t gitTool) Effect(ctx context.Context, call tools.Call, env tools.Env) string {
	if t.effect == nil {
		return ""
	}
	shown, _ := tools.StringArg(call.Input, "path")
	g, err := findRepo(ctx, env, shown)
	if err != nil {
		return ""
	}
	return t.effect(ctx, g, call.Input)
}

func branchEffect(ctx context.Context, g gitRepo, in map[string]any) string {
	if c, _ := in["create"].(bool); !c {
		return ""
	}
	from, _ := tools.StringArg(in, "from")
	from = cmp.Or(from, "HEAD")
	if strings.HasPrefix(from, "-") {
		return ""
	}
	out, err := runGit(ctx, g.top, "log", "-1", "--format=%h %s", from, "--")
	if err != nil {
		return fmt.Sprintf("start point %s does not exist", from)
	}
	name, _ := tools.StringArg(in, "name")
	return fmt.Sprintf("creates %s at %s (%s)", name, from, strings.TrimSpace(out))
}

func commitEffect(ctx context.Context, g gitRepo, in map[string]any) string {
	files := stringList(in["files"])
	if len(files) == 0 {
		return ""
	}
	msg, _ := tools.StringArg(in, "message")
	var b strings.Builder
	fmt.Fprintf(&b, "commits %q with:", firstLine(msg))
	for _, f := range files {
		out, _ := runGit(ctx, g.top, "diff", "--numstat", "HEAD", "--", f)
		if strings.TrimSpace(out) == "" {
			// Untracked (or no commit yet): against nothing. git exits 1
			// when the files differ, and still prints the counts.
			out, _ = runGit(ctx, g.top, "diff", "--numstat", "--no-index", "--", "/dev/null", f)
		}
		if fields := strings.SplitN(strings.TrimSpace(out), "\t", 3); len(fields) == 3 {
			fmt.Fprintf(&b, "\n  +%s -%s %s", fields[0], fields[1], f)
		} else {
			fmt.Fprintf(&b, "\n  (no changes) %s", f)
		}
	}
	return b.String()
}

func pushEffect(ctx context.Context, g gitRepo, in map[string]any) string {
	remote, branch, err := g.pushTarget(ctx, in)
	if err != nil {
		return err.Error()
	}
	if strings.HasPrefix(remote, "-") || strings.HasPrefix(branch, "-") {
		return ""
	}
	target := remote + "/" + branch
	rng := target + ".." + branch
	if _, err := runGit(ctx, g.top, "rev-parse", "--verify", "--quiet", "refs/remotes/"+target); err != nil {
		rng = branch // the remote has no such branch yet: everything goes
		target += " (new branch)"
	}
	out, err := runGit(ctx, g.top, "log", "--format=%h %s", rng, "--")
	if err != nil {
		return ""
	}
	commits := strings.Split(strings.TrimSpace(out), "\n")
	if strings.TrimSpace(out) == "" {
		return "pushes nothing new to " + target
	}
	force := ""
	if f, _ := in["force"].(bool); f {
		force = " with --force-with-lease"
	}
	return fmt.Sprintf("pushes %d commit(s) to %s%s:\n  %s", len(commits), target, force, strings.Join(commits, "\n  "))
}

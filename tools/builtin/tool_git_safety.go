package builtin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/chatls/chatls/internal/fspath"
	"github.com/chatls/chatls/internal/keyenv"
)

// gitNeutral are the -c options every git tool run starts with (SPEC §5
// "Git tools"): each configuration that would start a program — from a
// repository's .git/config, a planted include, or the user's files — is
// set to something harmless for this invocation only. -c outranks every
// configuration file and is passed on to the git processes git starts.
var gitNeutral = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.sshCommand=ssh",
	"-c", "core.editor=false",
	"-c", "sequence.editor=false",
	"-c", "core.askPass=",
	"-c", "core.gitProxy=",
	"-c", "core.alternateRefsCommand=",
	"-c", "diff.external=",
	"-c", "credential.helper=",
	"-c", "gpg.program=false",
	"-c", "gpg.ssh.program=false",
	"-c", "gpg.x509.program=false",
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "log.showSignature=false",
	"-c", "protocol.ext.allow=never",
	"-c", "submodule.recurse=false",
	"-c", "status.submoduleSummary=false",
	"-c", "diff.submodule=short",
	"-c", "pager.status=false", "-c", "pager.diff=false", "-c", "pager.log=false", "-c", "pager.branch=false",
}

// gitDriverKeys are configuration keys whose names carry a driver or remote
// name and whose values start a program: each one configured gets
// emptied (filter drivers then pass content through, diff drivers compare
// bytes, remotes use the standard pack programs).
const gitDriverKeys = `^(filter\..*\.(clean|smudge|process)|diff\..*\.(command|textconv)|merge\..*\.driver|remote\..*\.(receivepack|uploadpack|proxy|vcs)|http\..*proxy|url\..*\.insteadof|credential\..*\.helper)$`

// gitEnviron is chatls's environment without provider keys and without
// any GIT_* or other variable that changes what git runs or reads.
func gitEnviron() []string {
	var out []string
	for _, kv := range keyenv.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || name == "SSH_ASKPASS" || name == "PAGER" || name == "EDITOR" || name == "VISUAL" ||
			strings.HasPrefix(name, "LD_") || name == "BASH_ENV" || name == "ENV" || name == "PROMPT_COMMAND" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS=", "GIT_EXTERNAL_DIFF=")
}

// gitDriverOverrides lists the driver keys the repository's configuration
// (all files git reads) sets, as -c KEY= options.
func gitDriverOverrides(ctx context.Context, dir string) []string {
	args := append(append([]string{"-C", dir}, gitNeutral...), "config", "--null", "--get-regexp", gitDriverKeys)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = gitEnviron()
	out, _ := cmd.Output() // exit 1: none set
	var opts []string
	seen := map[string]bool{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		key, _, _ := strings.Cut(string(rec), "\n")
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		value := ""
		switch {
		case strings.HasSuffix(key, ".receivepack"):
			value = "git-receive-pack"
		case strings.HasSuffix(key, ".uploadpack"):
			value = "git-upload-pack"
		case strings.HasSuffix(key, ".insteadof"):
			value = "chatls-neutralized-insteadof:" // a prefix no URL starts with
		}
		opts = append(opts, "-c", key+"="+value)
	}
	return opts
}

// checkGitDir refuses a repository whose .git file (a worktree or
// submodule) or commondir leads outside the workspace: git would read its
// configuration, hooks and objects from there.
func checkGitDir(top, workspace string) error {
	if workspace == "" {
		return nil
	}
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Lstat(dotgit)
	if err != nil {
		return nil // a bare or unusual layout git found by itself
	}
	gitdir := dotgit
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		target := dotgit
		if !fi.IsDir() && fi.Mode().IsRegular() {
			b, err := os.ReadFile(dotgit)
			if err != nil {
				return err
			}
			line, _, _ := strings.Cut(string(b), "\n")
			p, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
			if !ok {
				return fmt.Errorf("%s is not a gitdir file", dotgit)
			}
			target = strings.TrimSpace(p)
			if !filepath.IsAbs(target) {
				target = filepath.Join(top, target)
			}
		}
		resolved, err := filepath.EvalSymlinks(target)
		if err != nil {
			return fmt.Errorf("%s points to %s, which cannot be resolved", dotgit, target)
		}
		if !fspath.Within(resolved, canonicalDir(workspace)) {
			return fmt.Errorf("%s points outside the workspace (%s): refusing to run git there", dotgit, resolved)
		}
		gitdir = resolved
	}
	if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
		resolved, err := filepath.EvalSymlinks(common)
		if err != nil || !fspath.Within(resolved, canonicalDir(workspace)) {
			return fmt.Errorf("%s/commondir points outside the workspace (%s): refusing to run git there", gitdir, common)
		}
	}
	return nil
}

func canonicalDir(d string) string {
	if c, err := filepath.EvalSymlinks(d); err == nil {
		return c
	}
	return d
}

// userCredentialHelpers gives git_push back the credential helpers of the
// user's own git configuration (~/.gitconfig, ~/.config/git/config), which
// gitNeutral reset with the repository's.
func userCredentialHelpers(ctx context.Context) []string {
	cmd := exec.CommandContext(ctx, "git", "config", "--global", "--null", "--get-all", "credential.helper")
	cmd.Env = gitEnviron()
	cmd.Dir = os.TempDir() // outside any repository
	out, _ := cmd.Output()
	var opts []string
	for _, v := range bytes.Split(out, []byte{0}) {
		if len(v) > 0 {
			opts = append(opts, "-c", "credential.helper="+string(v))
		}
	}
	return opts
}

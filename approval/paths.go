package approval

import (
	"errors"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/chatls/chatls/internal/fspath"
)

// canonicalPath makes p absolute (relative to base, ~ to home) and resolves
// it the way the kernel does (fspath: the tools touch the same path). A
// path that cannot be resolved (a symlink loop) is "": inside no
// directory, so nothing is approved for it. A path that leads into /proc
// (/proc/self/cwd, /dev/fd/3, /dev/stdout/..) is not resolved in chatls's
// process, whose /proc is not the one of the program that opens it: it is
// procPath, outside every directory and sensitive.
func canonicalPath(p, base, home string) string {
	return resolveFor("/", fspath.Abs(p, base, home))
}

// procPath stands for any path that leads into /proc.
const procPath = "/proc"

// resolveFor resolves rel from the canonical directory base as another
// process would see it (fspath.ResolveForOther): procPath for /proc, ""
// when it can't be resolved.
func resolveFor(base, rel string) string {
	if !filepath.IsAbs(rel) && base == "" {
		return ""
	}
	c, err := fspath.ResolveForOther(base, rel)
	switch {
	case errors.Is(err, fspath.ErrProc):
		return procPath
	case err != nil:
		return ""
	}
	return c
}

// sensitiveToken names the secret-looking part of p ("" if none): the text
// a rule must contain to name the path explicitly. Besides SPEC's secrets it
// covers files that change what later runs: chatls's own configuration,
// git hooks and config, editor settings (which can hold chatls settings),
// and shell start-up files.
func sensitiveToken(p string) string {
	if fspath.Within(path.Clean(p), procPath) {
		// Another process's environment, directory or root (SPEC §5).
		return procPath
	}
	parts := strings.Split(strings.ToLower(filepath.ToSlash(p)), "/")
	for i, c := range parts {
		next := ""
		if i+1 < len(parts) {
			next = parts[i+1]
		}
		if t := sensitiveName(c, next, parts[i+1:]); t != "" {
			return t
		}
	}
	return ""
}

// sensitiveName checks one path component (rest: the components below it).
func sensitiveName(c, next string, rest []string) string {
	switch {
	case strings.HasPrefix(c, ".env"):
		return ".env"
	case c == ".ssh" || c == ".aws" || c == ".gnupg" || c == ".netrc":
		return c
	case strings.Contains(c, "credentials"):
		return "credentials"
	case strings.HasPrefix(c, "id_rsa"):
		return "id_rsa"
	case strings.HasPrefix(c, "id_ed25519"):
		return "id_ed25519"
	case c == ".git":
		// .git/config, .git/hooks/, and the same inside .git/modules/*.
		for _, r := range rest {
			if r == "config" {
				return ".git/config"
			}
			if r == "hooks" {
				return ".git/hooks"
			}
		}
	case c == ".chatls.toml" || c == ".gitconfig" || c == ".husky" || c == ".vscode" || c == ".zed" ||
		c == ".helix" || c == ".nvim.lua" || c == ".nvimrc" || c == ".exrc":
		return c
	case c == ".config" && next == "chatls":
		return "chatls/"
	case c == ".config" && startupConfigDirs[next]:
		// Editor settings chatls trusts, git's user configuration, a
		// shell's start-up files: writing them runs code later.
		return ".config/" + next
	case shellStartupFiles[c] || editorStartupFiles[c]:
		// Not in SPEC's list, but writing them runs code at the next login.
		return c
	}
	return ""
}

var sensitiveNames = []string{".env", ".ssh", ".aws", ".gnupg", ".netrc", "credentials",
	"id_rsa", "id_ed25519", ".git", ".chatls.toml", ".gitconfig", ".husky", ".vscode", ".zed", ".helix",
	".nvim.lua", ".nvimrc", ".exrc", ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".bash_logout", ".zlogout", ".vimrc", ".emacs"}

// sensitive is sensitiveToken plus the user's own configuration directory.
func (e *Engine) sensitive(p string) string {
	if t := sensitiveToken(p); t != "" {
		return t
	}
	for _, d := range e.configDirs {
		if fspath.Within(p, d.path) {
			return d.token
		}
	}
	return ""
}

// writeSensitive is sensitive for a path being written, created, moved or
// removed: also anything named .git, or inside one, anywhere (a planted
// src/.git file, .git/commondir, .git/config.worktree, .git/hooks/x each
// make git run or read what the writer chose).
func (e *Engine) writeSensitive(p string) string {
	if t := e.sensitive(p); t != "" {
		return t
	}
	for _, c := range strings.Split(strings.ToLower(filepath.ToSlash(p)), "/") {
		if c == ".git" {
			return ".git"
		}
	}
	return ""
}

// configDir is a directory or file holding the user's chatls configuration.
type configDir struct{ path, token string }

// commandSecret finds a sensitive path a bash command reads or names: a
// literal argument (also the value in --opt=VALUE, @FILE or REV:FILE), a glob that
// could match one, or a file its statement redirects from. The command is
// then approved only by a rule whose pattern names it (bash(cat .env)).
func (e *Engine) commandSecret(c *shellCommand, canon map[string]string) (token, where string) {
	cwd := c.cwd
	if cwd != "" {
		if cc, ok := canon[cwd]; ok {
			cwd = cc
		} else {
			cc = e.canon(cwd, "/", e.home)
			canon[cwd] = cc
			cwd = cc
		}
		c.canonCwd = cwd
	}
	if len(c.words) > 0 && !noFileArgs[path.Base(c.words[0].text)] {
		for _, a := range c.words[1:] {
			if a.tainted {
				return "a value this command makes at run time", displayWord(a)
			}
		}
	}
	if c.unknownRead {
		return "a file named by a value this command makes at run time", "<"
	}
	for _, pa := range programPatterns(c.words) {
		if t := patternSecret(pa, false); t != "" {
			return t, pa
		}
	}
	for _, a := range c.words[1:] {
		if a.glob {
			if t := patternSecret(a.pat, true); t != "" {
				return t, a.text
			}
		}
		for _, piece := range strings.FieldsFunc(a.text, func(r rune) bool { return r == '=' || r == '@' || r == ',' || r == ':' }) {
			if t := sensitiveToken(piece); t != "" {
				return t, piece
			}
			if a.dyn || a.glob || cwd == "" || strings.HasPrefix(piece, "-") {
				continue
			}
			if t := e.argPathSecret(cwd, piece); t != "" {
				return t, piece
			}
		}
	}
	for _, r := range c.reads {
		if t := e.sensitive(e.canon(r, "/", e.home)); t != "" {
			return t, r
		}
		if t := patternSecret(r, true); t != "" {
			return t, r // < .e* reads the one file the glob matches
		}
	}
	return "", ""
}

// argPathSecret resolves an argument as a path (a link named notes.txt may
// point at .env). A plain name in the (canonical) directory is one lstat.
func (e *Engine) argPathSecret(cwd, arg string) string {
	switch {
	case arg == "~" || strings.HasPrefix(arg, "~/"):
		return e.sensitive(e.canon(arg, cwd, e.home))
	case strings.HasPrefix(arg, "~"):
		return ""
	}
	c := resolveFor(cwd, arg)
	if c == "" {
		return "an unresolvable path"
	}
	return e.sensitive(c)
}

// pathPattern is a gitignore-style glob: relative to the workspace root,
// absolute when it starts with / or ~/.
type pathPattern struct {
	text     string
	absolute bool
	glob     string // doublestar pattern (relative or absolute)
}

func compilePathPattern(text, home string) (*pathPattern, error) {
	pp := &pathPattern{text: text}
	g := text
	switch {
	case strings.HasPrefix(g, "~/"):
		pp.absolute = true
		g = filepath.Join(home, g[2:]) + trailingSlash(g)
	case strings.HasPrefix(g, "/"):
		pp.absolute = true
	default:
		g = strings.TrimPrefix(g, "./")
		if !strings.Contains(strings.TrimSuffix(g, "/"), "/") {
			g = "**/" + g // gitignore: a bare name matches at any depth
		}
	}
	if strings.HasSuffix(g, "/") {
		g += "**"
	}
	if pp.absolute {
		g = canonicalGlobPrefix(g)
	}
	if !doublestar.ValidatePattern(g) {
		return nil, errBadGlob
	}
	pp.glob = g
	return pp, nil
}

func trailingSlash(s string) string {
	if strings.HasSuffix(s, "/") {
		return "/"
	}
	return ""
}

// canonicalGlobPrefix resolves symlinks in the glob's literal directories
// (/tmp → /private/tmp on macOS) so it compares with canonical paths.
func canonicalGlobPrefix(g string) string {
	parts := strings.Split(g, "/")
	i := 0
	for i < len(parts) && !strings.ContainsAny(parts[i], "*?[{\\") {
		i++
	}
	if i <= 1 {
		return g
	}
	prefix := filepath.Clean("/" + strings.Join(parts[:i], "/"))
	if c, err := fspath.Resolve(prefix); err == nil {
		prefix = c
	}
	rest := strings.Join(parts[i:], "/")
	if rest == "" {
		return prefix
	}
	return strings.TrimSuffix(prefix, "/") + "/" + rest
}

// match reports whether the canonical path p matches, gitignore-style: a
// pattern naming a directory also matches everything below it.
func (pp *pathPattern) match(p, root string) bool {
	target := p
	if !pp.absolute {
		if root == "" || !fspath.Within(p, root) {
			return false
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return false
		}
		target = filepath.ToSlash(rel)
	}
	if ok, _ := doublestar.Match(pp.glob, target); ok {
		return true
	}
	ok, _ := doublestar.Match(pp.glob+"/**", target)
	return ok
}

// names reports whether the pattern's own text names a sensitive token
// explicitly (read(.env.example) names .env; read(**) does not).
func (pp *pathPattern) names(token string) bool {
	return token != "" && strings.Contains(strings.ToLower(pp.text), token)
}

var shellStartupFiles = map[string]bool{
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".bash_logout": true, ".profile": true,
	".zshrc": true, ".zshenv": true, ".zprofile": true, ".zlogin": true, ".zlogout": true,
	".cshrc": true, ".tcshrc": true, ".kshrc": true, ".mkshrc": true, ".inputrc": true,
}

// editorStartupFiles are editors' own start-up files in the home directory.
var editorStartupFiles = map[string]bool{".vimrc": true, ".gvimrc": true, ".vim": true, ".emacs": true, ".emacs.d": true}

// startupConfigDirs are the directories under ~/.config (lower case) whose
// files configure a program chatls or the user starts: the editors whose
// settings chatls trusts, git, the shells.
var startupConfigDirs = map[string]bool{
	"code": true, "code - oss": true, "code - insiders": true, "vscodium": true, "cursor": true, "windsurf": true,
	"zed": true, "helix": true, "nvim": true, "vim": true, "emacs": true, "doom": true, "kak": true,
	"git": true, "fish": true, "zsh": true, "bash": true, "environment.d": true, "systemd": true, "autostart": true,
}

// commandReadsMatch applies a read deny rule (read(private/**)) to a bash
// command by its effect: any argument that names a path the rule covers
// (cat private/x, grep x private/), or a file its statement reads (<),
// denies it; an argument made at run time may (the call asks).
func (e *Engine) commandReadsMatch(r *rule, c *shellCommand, env callEnv) denyResult {
	paths, unknown := e.commandReadPaths(c)
	for _, p := range paths {
		if r.path.match(p, env.root) {
			return denyYes
		}
	}
	if unknown {
		return denyMaybe
	}
	return denyNo
}

// commandReadPaths are the canonical paths a command's arguments and input
// redirections may name (computed once per command: each deny rule asks);
// unknown says an argument is made at run time.
func (e *Engine) commandReadPaths(c *shellCommand) ([]string, bool) {
	if c.readPathsDone {
		return c.readPaths, c.readUnknown
	}
	c.readPathsDone = true
	for _, rd := range c.reads {
		if p := e.canon(rd, "/", e.home); p != "" {
			c.readPaths = append(c.readPaths, p)
		}
	}
	if len(c.words) == 0 || noFileArgs[path.Base(c.words[0].text)] {
		return c.readPaths, false
	}
	cwd := c.canonCwd
	if cwd == "" && c.cwd != "" {
		cwd = e.canon(c.cwd, "/", e.home)
	}
	for _, a := range c.words[1:] {
		if a.tainted || a.dyn && a.lead == 0 {
			c.readUnknown = true
			continue
		}
		for _, piece := range strings.FieldsFunc(a.text, func(r rune) bool { return r == '=' || r == '@' || r == ',' || r == ':' }) {
			var p string
			switch {
			case strings.HasPrefix(piece, "-"):
				continue
			case strings.HasPrefix(piece, "/") || strings.HasPrefix(piece, "~"):
				p = e.canon(piece, cwd, e.home)
			case cwd != "":
				p = resolveFor(cwd, piece)
			}
			if p != "" {
				c.readPaths = append(c.readPaths, p)
			}
		}
	}
	return c.readPaths, c.readUnknown
}

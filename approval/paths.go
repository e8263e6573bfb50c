package approval

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// canonicalPath makes p absolute (relative to base, ~ to home), removes ..
// and resolves symlinks in the longest existing prefix — including a
// dangling symlink at the end, which a write would follow.
func canonicalPath(p, base, home string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case !filepath.IsAbs(p):
		p = filepath.Join(base, p)
	}
	return resolveLinks(filepath.Clean(p))
}

// resolveLinks follows symlinks component by component; components that
// don't exist are kept as written.
func resolveLinks(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for hops := 0; len(parts) > 0; {
		part := parts[0]
		parts = parts[1:]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			// Nothing below exists: the rest stays lexical.
			return filepath.Join(append([]string{next}, parts...)...)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return filepath.Join(append([]string{next}, parts...)...)
		}
		target, err := os.Readlink(next)
		if err != nil {
			cur = next
			continue
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		parts = append(strings.Split(strings.TrimPrefix(filepath.Clean(target), "/"), "/"), parts...)
		cur = "/"
	}
	return cur
}

// within reports whether p is dir or inside it (both canonical).
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

func withinAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

// sensitiveToken names the secret-looking part of p ("" if none): the text
// a rule must contain to name the path explicitly.
func sensitiveToken(p string) string {
	parts := strings.Split(strings.ToLower(filepath.ToSlash(p)), "/")
	for i, c := range parts {
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
		case c == ".git" && i+1 < len(parts) && parts[i+1] == "config":
			return ".git/config"
		case shellStartupFiles[c]:
			// Not in SPEC's list, but writing them runs code at the next login.
			return c
		}
	}
	return ""
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
	prefix := resolveLinks(filepath.Clean("/" + strings.Join(parts[:i], "/")))
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
		if root == "" || !within(p, root) {
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
	".bashrc": true, ".bash_profile": true, ".bash_login": true, ".profile": true,
	".zshrc": true, ".zshenv": true, ".zprofile": true, ".zlogin": true,
}

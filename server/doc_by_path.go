package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// openDocByPath finds the open document an editor names by path: an
// absolute path, "~/…", or a path relative to the editor's working
// directory, which the server does not know — so a relative path names the
// one open document whose path ends with it.
func (s *Server) openDocByPath(path string) (string, error) {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, rest)
		}
	}
	path = filepath.Clean(path)
	var matches []string
	for _, ds := range s.sess.Docs() {
		if ds.Path() == path || !filepath.IsAbs(path) && strings.HasSuffix(ds.Path(), string(filepath.Separator)+path) {
			matches = append(matches, ds.URI())
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("no open document at %s", path)
	}
	return "", fmt.Errorf("%d open documents end with %s: pass the uri", len(matches), path)
}

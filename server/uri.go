package server

import (
	"net/url"
	"path/filepath"
	"strings"
)

// uriToPath converts a file:// URI to a local path; other schemes give "".
// URIs stay strings everywhere else (go.lsp.dev/uri panics on non-file URIs).
func uriToPath(uri string) string {
	if !strings.HasPrefix(uri, "file://") {
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	return filepath.Clean(u.Path)
}

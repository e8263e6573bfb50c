// Package fileuri converts between local paths and file:// URIs, the one
// place chatls does it. URIs stay strings everywhere: go.lsp.dev/uri
// percent-decodes wrongly and panics on other schemes (STYLE.md), while
// net/url escapes spaces, '#' and '?' and decodes them back correctly.
package fileuri

import (
	"net/url"
	"path/filepath"
	"strings"
)

// FromPath is the file:// URI of path, which should be absolute.
func FromPath(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // Windows drive letters: file:///C:/…
	}
	return u.String()
}

// ToPath is the local path of a file:// URI, cleaned; other schemes and
// URIs that do not parse give "".
func ToPath(uri string) string {
	if !strings.HasPrefix(uri, "file://") {
		return ""
	}
	u, err := url.Parse(uri)
	if err != nil || u.Path == "" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

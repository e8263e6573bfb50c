package server

import "github.com/chatls/chatls/internal/fileuri"

// uriToPath converts a file:// URI to a local path; other schemes give "".
func uriToPath(uri string) string { return fileuri.ToPath(uri) }

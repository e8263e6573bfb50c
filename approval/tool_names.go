package approval

import "strings"

// CanonicalTool is a tool's name as Flemma 0.12 writes it: an MCP tool is
// `server.tool`; 0.11's `server:tool` (in a document or a rule) names the
// same tool.
func CanonicalTool(name string) string { return strings.Replace(name, ":", ".", 1) }

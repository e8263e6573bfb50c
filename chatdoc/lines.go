package chatdoc

import "strings"

// Line classifiers. Each takes one line without its line ending and answers
// cheaply; the parser calls them only after a first-byte check.

// isWordByte matches Lua's %w plus '_' (Flemma's role names), ASCII only.
func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func trimSpaceRight(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// trimBlanksLeft drops leading spaces and tabs: strings.TrimLeft(s, " \t")
// without building a set on every call (a header line's hot path).
func trimBlanksLeft(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	return s
}

func isBlank(line string) bool { return trimSpaceRight(line) == "" }

// roleMarker recognises `@Word:` alone on a line (trailing whitespace
// allowed). inline is the text after `@Word:` for the pre-0.6 form
// `@You: text`, which is reported only for the three known roles.
func roleMarker(line string) (role string, inline string, ok bool) {
	if len(line) < 3 || line[0] != '@' {
		return "", "", false
	}
	i := 1
	for i < len(line) && isWordByte(line[i]) {
		i++
	}
	if i == 1 || i >= len(line) || line[i] != ':' {
		return "", "", false
	}
	role, rest := line[1:i], line[i+1:]
	if trimSpaceRight(rest) == "" {
		return role, "", true
	}
	if !isKnownRole(role) || (rest[0] != ' ' && rest[0] != '\t') {
		return "", "", false
	}
	return role, trimBlanksLeft(rest), true
}

func isKnownRole(role string) bool { return role == "You" || role == "Assistant" || role == "System" }

// fenceOpener recognises 3+ backticks at column 0 with no other backtick on
// the line; info is the trimmed rest.
func fenceOpener(line string) (ticks int, info string, ok bool) {
	for ticks < len(line) && line[ticks] == '`' {
		ticks++
	}
	if ticks < 3 || strings.IndexByte(line[ticks:], '`') >= 0 {
		return 0, "", false
	}
	return ticks, strings.TrimSpace(line[ticks:]), true
}

// fenceCloser recognises a line of at least ticks backticks and nothing but
// trailing whitespace.
func fenceCloser(line string, ticks int) bool {
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	return n >= ticks && trimSpaceRight(line[n:]) == ""
}

// backtickField reads "`X`" at the start of s: X non-empty without backticks.
func backtickField(s string) (field string, after string, ok bool) {
	if len(s) < 3 || s[0] != '`' {
		return "", "", false
	}
	end := strings.IndexByte(s[1:], '`')
	if end <= 0 {
		return "", "", false
	}
	return s[1 : 1+end], s[2+end:], true
}

const (
	toolUsePrefix    = "**Tool Use:**"
	toolResultPrefix = "**Tool Result:**"
)

// toolUseHeader parses **Tool Use:** `NAME` (`ID`), returning the byte
// offsets of NAME and ID inside line.
func toolUseHeader(line string) (nameAt, nameLen, idAt, idLen int, ok bool) {
	if !strings.HasPrefix(line, toolUsePrefix) {
		return
	}
	rest := trimBlanksLeft(line[len(toolUsePrefix):])
	nameAt = len(line) - len(rest) + 1
	name, rest, ok := backtickField(rest)
	if !ok {
		return 0, 0, 0, 0, false
	}
	rest = trimBlanksLeft(rest)
	if !strings.HasPrefix(rest, "(") {
		return 0, 0, 0, 0, false
	}
	idAt = len(line) - len(rest) + 2
	id, rest, ok := backtickField(rest[1:])
	if !ok || !strings.HasPrefix(rest, ")") || trimSpaceRight(rest[1:]) != "" {
		return 0, 0, 0, 0, false
	}
	return nameAt, len(name), idAt, len(id), true
}

// toolResultHeader parses **Tool Result:** `ID` with an optional suffix in
// parentheses; suffixAt/suffixLen locate the text inside the parentheses.
func toolResultHeader(line string) (idAt, idLen, suffixAt, suffixLen int, ok bool) {
	if !strings.HasPrefix(line, toolResultPrefix) {
		return
	}
	rest := trimBlanksLeft(line[len(toolResultPrefix):])
	idAt = len(line) - len(rest) + 1
	id, rest, ok := backtickField(rest)
	if !ok {
		return 0, 0, 0, 0, false
	}
	rest = trimSpaceRight(trimBlanksLeft(rest))
	if rest == "" {
		return idAt, len(id), 0, 0, true
	}
	if rest[0] != '(' || rest[len(rest)-1] != ')' {
		return 0, 0, 0, 0, false
	}
	suffixAt = len(line) - len(trimBlanksLeft(line[idAt+len(id)+1:])) + 1
	return idAt, len(id), suffixAt, len(rest) - 2, true
}

// thinkingOpen recognises <thinking>, <thinking ATTRS> and <thinking ATTRS/>.
func thinkingOpen(line string) (attrs string, selfClosing bool, ok bool) {
	line = trimSpaceRight(line)
	if !strings.HasPrefix(line, "<thinking") || !strings.HasSuffix(line, ">") {
		return "", false, false
	}
	inner := line[len("<thinking") : len(line)-1]
	if inner != "" && inner[0] != ' ' && inner[0] != '\t' && inner != "/" {
		return "", false, false
	}
	if strings.HasSuffix(inner, "/") {
		selfClosing = true
		inner = inner[:len(inner)-1]
	}
	return strings.TrimSpace(inner), selfClosing, true
}

func isThinkingClose(line string) bool { return strings.TrimSpace(line) == "</thinking>" }

// abortMarker recognises <!-- flemma:aborted: MESSAGE --> alone on a line.
func abortMarker(line string) (message string, ok bool) {
	line = strings.TrimSpace(line)
	const open, close = "<!-- flemma:aborted:", "-->"
	if !strings.HasPrefix(line, open) || !strings.HasSuffix(line, close) || len(line) < len(open)+len(close) {
		return "", false
	}
	return strings.TrimSpace(line[len(open) : len(line)-len(close)]), true
}

// frontmatterOpener recognises ```WORD on the first line.
func frontmatterOpener(line string) (language string, ok bool) {
	line = trimSpaceRight(line)
	if !strings.HasPrefix(line, "```") || len(line) == 3 {
		return "", false
	}
	word := line[3:]
	for i := 0; i < len(word); i++ {
		if !isWordByte(word[i]) {
			return "", false
		}
	}
	return word, true
}

func isFrontmatterCloser(line string) bool { return trimSpaceRight(line) == "```" }

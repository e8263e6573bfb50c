package chatdoc

import (
	"path/filepath"
	"strings"
)

// fileRefs records `@./path`, `@../path`, `@~/path` (home) and `@//path`
// (absolute) references in You and System
// messages, read as Flemma reads them: the reference starts at the line
// start or after whitespace or "(" and ends at whitespace; a `;type=MIME`
// suffix names the MIME type; otherwise trailing ASCII punctuation is not
// part of it; the path is URL-decoded (`%20` and `+` are spaces).
func (s *bodyScanner) fileRefs(line string, lineStart int) {
	if role := s.role(); role != "You" && role != "System" || strings.IndexByte(line, '@') < 0 {
		return
	}
	for i := 0; i < len(line); i++ {
		if line[i] != '@' || (i > 0 && !isSpace(line[i-1]) && line[i-1] != '(') {
			continue
		}
		rest := line[i+1:]
		if !isFileRefStart(rest) {
			continue
		}
		n := fileRefLen(rest)
		raw, path, mime, opts := splitFileRef(rest[:n])
		i += n
		if strings.HasPrefix(path, "//") {
			path = path[1:] // `@//tmp/x` names /tmp/x
		}
		if strings.Trim(path, "./~") == "" {
			continue
		}
		start := lineStart + i - n
		x := s.cur.more()
		x.fileRefs = append(x.fileRefs, &FileRef{Span: Span{start, start + 1 + len(raw)}, Path: path, MIME: mime, Options: opts})
	}
}

func isFileRefStart(s string) bool {
	return strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "//")
}

// ResolveFileRef is the file a reference's Path names: relative paths from
// the document's directory, `~/` from home. An empty result means it names
// nothing resolvable (a relative path in an unsaved buffer, no home).
func ResolveFileRef(docDir, home, path string) string {
	switch {
	case strings.HasPrefix(path, "~/"):
		if home == "" {
			return ""
		}
		path = filepath.Join(home, path[2:])
	case !filepath.IsAbs(path):
		if docDir == "" {
			return ""
		}
		path = filepath.Join(docDir, path)
	}
	return filepath.Clean(path)
}

// fileRefLen is how far a reference (without its "@") reaches: to the
// first whitespace, except inside a quoted option value (`;title="a b"`,
// Flemma 0.14); an unterminated quote ends at whitespace.
func fileRefLen(s string) int {
	n, quoted, quoteAt := 0, false, 0
	for n < len(s) {
		c := s[n]
		switch {
		case quoted:
			quoted = c != '"'
		case isSpace(c):
			return n
		case c == '"' && n > 0 && s[n-1] == '=' && strings.IndexByte(s[:n], ';') >= 0:
			quoted, quoteAt = true, n
		}
		n++
	}
	if quoted {
		if sp := strings.IndexFunc(s[quoteAt:], func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }); sp >= 0 {
			return quoteAt + sp
		}
	}
	return n
}

// splitFileRef reads a reference without its "@": the part that belongs to
// it (raw), the decoded path, the MIME override and the `;key=value`
// options in order (Flemma 0.14: several, a quoted value may hold `;` and
// spaces; `type` is also the MIME). Trailing punctuation after the last
// unquoted value is not part of the reference.
func splitFileRef(ref string) (raw, path, mime string, opts []KV) {
	semi := strings.IndexByte(ref, ';')
	if semi <= 0 {
		raw = trimPunctRight(ref)
		return raw, urlDecode(raw), "", nil
	}
	end := semi // raw ends here until an option is read
	for i := semi; i < len(ref) && ref[i] == ';'; {
		k := i + 1
		for k < len(ref) && (isWordByte(ref[k]) || ref[k] == '-' || ref[k] == '.') {
			k++
		}
		if k == i+1 || k >= len(ref) || ref[k] != '=' {
			break
		}
		key, v := ref[i+1:k], k+1
		var value string
		if v < len(ref) && ref[v] == '"' {
			q := strings.IndexByte(ref[v+1:], '"')
			if q < 0 {
				break
			}
			value, end, i = ref[v+1:v+1+q], v+q+2, v+q+2
		} else {
			j := v + strings.IndexByte(ref[v:]+";", ';')
			value = ref[v:j]
			if j == len(ref) {
				value = trimPunctRight(value)
				j = v + len(value)
			}
			if value == "" {
				break
			}
			end, i = v+len(value), j
		}
		opts = append(opts, KV{Key: key, Value: value})
		if key == "type" && mime == "" {
			mime = value
		}
	}
	if len(opts) == 0 {
		raw = trimPunctRight(ref)
		return raw, urlDecode(raw), "", nil
	}
	return ref[:end], urlDecode(ref[:semi]), mime, opts
}

// trimPunctRight drops trailing ASCII punctuation (Lua's %p).
func trimPunctRight(s string) string {
	for len(s) > 0 && isASCIIPunct(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// urlDecode turns "+" into a space and %XX into its byte, leaving anything
// else (an invalid escape) as written, like Flemma's url_decode.
func urlDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// FileRefDiagnostics flags references whose file is missing. exists is asked
// with each reference's decoded path (relative to the document's directory);
// chatdoc itself never touches the file system.
func FileRefDiagnostics(d *Document, exists func(path string) bool) []Diagnostic {
	var out []Diagnostic
	d.store.eachStored(func(m *Message, delta int) {
		for _, ref := range m.FileRefs() {
			if !exists(ref.Path) {
				out = append(out, diag(ref.Span.Shift(delta), SeverityWarning, CodeMissingFileReference, "",
					"File not found: %s", ref.Path))
			}
		}
	})
	return out
}

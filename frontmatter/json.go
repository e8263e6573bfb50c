package frontmatter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// Limits of JSON frontmatter. Options are a few levels deep (tools.bash.
// timeout); template variables may nest more, but not without bound: the
// decoder and the walks recurse once per level.
const (
	jsonMaxDepth      = 200  // nesting of any value
	jsonMaxOptionPath = 1024 // bytes of a dotted option path
)

// jsonNode is a decoded JSON value that keeps object key order and where each
// value started, so options come out in the order written, with their lines.
type jsonNode struct {
	keys   []string
	values []*jsonNode // object members (with keys) or array items
	isObj  bool
	isArr  bool
	scalar any
	offset int // byte offset in the code where the value ends
	keyEnd int // for object members: where the key ends (0 otherwise)
}

// jsonOperators are applied in this order whatever order they are written in:
// replace first, then add, then take out (so a removal always wins).
var jsonOperators = []struct{ key, op string }{
	{"$set", "set"}, {"$append", "append"}, {"$prepend", "prepend"}, {"$remove", "remove"},
}

var errJSONTooDeep = fmt.Errorf("nested more than %d levels deep", jsonMaxDepth)

func evaluateJSON(fm *source) []chatdoc.Diagnostic {
	lines := newCodeLines(fm)
	dec := json.NewDecoder(strings.NewReader(fm.Code))
	root, err := decodeJSONNode(dec, 0)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = fmt.Errorf("unexpected data after the top-level object")
		}
	}
	if err != nil {
		offset := int(dec.InputOffset())
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			offset = int(syn.Offset)
		}
		return []chatdoc.Diagnostic{diag(lines.span(lines.lineOf(offset)), chatdoc.SeverityError, chatdoc.CodeFrontmatterError, "",
			"Frontmatter error: %v", err)}
	}
	if !root.isObj {
		// As Flemma: a warning, the document is usable without variables.
		return []chatdoc.Diagnostic{diag(chatdoc.Span{Start: 0, End: fm.codeStart - 1}, chatdoc.SeverityWarning, chatdoc.CodeFrontmatterError, "",
			"Frontmatter must be an object, got %s", root.kind())}
	}
	j := jsonOptions{fm: fm, lines: lines}
	for i, key := range root.keys {
		if key == "flemma" || key == "chatls" {
			j.walk(root.values[i], key)
			continue
		}
		if fm.Vars == nil {
			fm.Vars = map[string]any{}
		}
		fm.Vars[key] = root.values[i].plain()
	}
	return j.diags
}

// kind names the value's JSON type for messages.
func (n *jsonNode) kind() string {
	switch v := n.scalar; {
	case n.isObj:
		return "object"
	case n.isArr:
		return "array"
	case v == nil:
		return "null"
	default:
		switch v.(type) {
		case string:
			return "string"
		case bool:
			return "boolean"
		}
		return "number"
	}
}

// decodeJSONNode reads one value; depth bounds the recursion (a frontmatter
// of five million "[" must give an error, not overflow the stack).
func decodeJSONNode(dec *json.Decoder, depth int) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := &jsonNode{}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') && depth >= jsonMaxDepth {
		return nil, errJSONTooDeep
	}
	switch tok {
	case json.Delim('{'):
		n.isObj = true
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			keyEnd := int(dec.InputOffset())
			child, err := decodeJSONNode(dec, depth+1)
			if err != nil {
				return nil, err
			}
			child.keyEnd = keyEnd
			n.keys = append(n.keys, keyTok.(string))
			n.values = append(n.values, child)
		}
		_, err = dec.Token()
	case json.Delim('['):
		n.isArr = true
		for dec.More() {
			child, err := decodeJSONNode(dec, depth+1)
			if err != nil {
				return nil, err
			}
			n.values = append(n.values, child)
		}
		_, err = dec.Token()
	default:
		n.scalar = tok
	}
	n.offset = int(dec.InputOffset())
	return n, err
}

// plain converts to ordinary Go values (map order lost: only for Vars).
func (n *jsonNode) plain() any {
	switch {
	case n.isObj:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = n.values[i].plain()
		}
		return m
	case n.isArr:
		l := make([]any, len(n.values))
		for i, v := range n.values {
			l[i] = v.plain()
		}
		return l
	}
	return n.scalar
}

// jsonOptions walks the option objects. The dotted path of the object being
// walked is kept as a stack of keys and joined only when an option or an
// error needs it, so deep or wide objects cost time linear in their size.
type jsonOptions struct {
	fm    *source
	lines *codeLines
	keys  []string // path from the option root ("flemma" or "chatls" excluded)
	size  int      // len(path())
	diags []chatdoc.Diagnostic
}

// line is the 1-based code line of the member's key, else of the value's end.
func (j *jsonOptions) line(n *jsonNode) int {
	if n.keyEnd > 0 {
		return j.lines.lineOf(n.keyEnd)
	}
	return j.lines.lineOf(n.offset)
}

func (j *jsonOptions) path() string { return strings.Join(j.keys, ".") }

func (j *jsonOptions) fail(n *jsonNode, format string, args ...any) {
	j.diags = append(j.diags, diag(j.lines.span(j.line(n)), chatdoc.SeverityError, chatdoc.CodeFrontmatterError, "",
		"Frontmatter error: "+format, args...))
}

func (j *jsonOptions) emit(n *jsonNode, op string, values []any) {
	j.fm.Options = append(j.fm.Options, OptionOp{Path: j.path(), Op: op, Values: values, Line: j.line(n)})
}

// walk reads an options object; root names it ("flemma") for messages.
func (j *jsonOptions) walk(n *jsonNode, root string) {
	if !n.isObj {
		j.fail(n, "%q must be an object of options", nonEmpty(j.path(), root))
		return
	}
	for i, key := range n.keys {
		child := n.values[i]
		j.keys = append(j.keys, key)
		j.size += len(key) + 1
		switch {
		case j.size > jsonMaxOptionPath+1:
			j.fail(child, "option name longer than %d bytes", jsonMaxOptionPath)
		case child.isObj && hasOperatorKey(child):
			j.operators(child)
		case child.isObj:
			j.walk(child, root)
		default:
			if values, ok := j.values(child); ok {
				j.emit(child, "set", values)
			}
		}
		j.keys = j.keys[:len(j.keys)-1]
		j.size -= len(key) + 1
	}
}

func hasOperatorKey(n *jsonNode) bool {
	for _, k := range n.keys {
		if strings.HasPrefix(k, "$") {
			return true
		}
	}
	return false
}

func (j *jsonOptions) operators(n *jsonNode) {
	for _, k := range n.keys {
		if !isJSONOperator(k) {
			j.fail(n, "%s: unknown key %q (operators are $set, $append, $prepend, $remove)", j.path(), k)
			return
		}
	}
	for _, op := range jsonOperators {
		for i, k := range n.keys {
			if k == op.key {
				if values, ok := j.values(n.values[i]); ok {
					j.emit(n.values[i], op.op, values)
				}
			}
		}
	}
}

func isJSONOperator(key string) bool {
	for _, op := range jsonOperators {
		if op.key == key {
			return true
		}
	}
	return false
}

// values reads a scalar or a list of scalars; null clears the option.
func (j *jsonOptions) values(n *jsonNode) ([]any, bool) {
	if n.isObj {
		j.fail(n, "%s: expected a value or a list", j.path())
		return nil, false
	}
	if !n.isArr {
		if n.scalar == nil {
			return nil, true
		}
		return []any{n.scalar}, true
	}
	out := make([]any, 0, len(n.values))
	for _, item := range n.values {
		if item.isObj || item.isArr {
			j.fail(item, "%s: list items must be strings, numbers or booleans", j.path())
			return nil, false
		}
		out = append(out, item.scalar)
	}
	return out, true
}

func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

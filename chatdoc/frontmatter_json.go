package chatdoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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

// line is the 1-based code line of the member's key, else of the value's end.
func (n *jsonNode) line(code string) int {
	if n.keyEnd > 0 {
		return codeLineOf(code, n.keyEnd)
	}
	return codeLineOf(code, n.offset)
}

// jsonOperators are applied in this order whatever order they are written in:
// replace first, then add, then take out (so a removal always wins).
var jsonOperators = []struct{ key, op string }{
	{"$set", "set"}, {"$append", "append"}, {"$prepend", "prepend"}, {"$remove", "remove"},
}

func evaluateJSON(fm *Frontmatter) []Diagnostic {
	dec := json.NewDecoder(strings.NewReader(fm.Code))
	root, err := decodeJSONNode(dec)
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
		return []Diagnostic{diag(codeLineSpan(fm, codeLineOf(fm.Code, offset)), SeverityError, CodeFrontmatterError, "",
			"Frontmatter error: %v", err)}
	}
	if !root.isObj {
		return []Diagnostic{diag(Span{0, fm.codeStart - 1}, SeverityError, CodeFrontmatterError, "",
			"Frontmatter error: JSON frontmatter must be an object")}
	}
	j := jsonOptions{fm: fm}
	for i, key := range root.keys {
		if key == "flemma" || key == "chatls" {
			j.walk(root.values[i], "")
			continue
		}
		if fm.Vars == nil {
			fm.Vars = map[string]any{}
		}
		fm.Vars[key] = root.values[i].plain()
	}
	return j.diags
}

func decodeJSONNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := &jsonNode{}
	switch tok {
	case json.Delim('{'):
		n.isObj = true
		for dec.More() {
			keyTok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			keyEnd := int(dec.InputOffset())
			child, err := decodeJSONNode(dec)
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
			child, err := decodeJSONNode(dec)
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

// codeLineOf is the 1-based line of offset within code.
func codeLineOf(code string, offset int) int {
	offset = max(0, min(offset, len(code)))
	return strings.Count(code[:offset], "\n") + 1
}

type jsonOptions struct {
	fm    *Frontmatter
	diags []Diagnostic
}

func (j *jsonOptions) fail(n *jsonNode, format string, args ...any) {
	line := n.line(j.fm.Code)
	j.diags = append(j.diags, diag(codeLineSpan(j.fm, line), SeverityError, CodeFrontmatterError, "",
		"Frontmatter error: "+format, args...))
}

func (j *jsonOptions) emit(n *jsonNode, path, op string, values []any) {
	j.fm.Options = append(j.fm.Options, OptionOp{Path: path, Op: op, Values: values,
		Line: n.line(j.fm.Code)})
}

func (j *jsonOptions) walk(n *jsonNode, path string) {
	if !n.isObj {
		j.fail(n, "%q must be an object of options", nonEmpty(path, "flemma"))
		return
	}
	for i, key := range n.keys {
		child, p := n.values[i], childPath(path, key)
		switch {
		case child.isObj && hasOperatorKey(child):
			j.operators(child, p)
		case child.isObj:
			j.walk(child, p)
		default:
			if values, ok := j.values(child, p); ok {
				j.emit(child, p, "set", values)
			}
		}
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

func (j *jsonOptions) operators(n *jsonNode, path string) {
	for _, k := range n.keys {
		if !isJSONOperator(k) {
			j.fail(n, "%s: unknown key %q (operators are $set, $append, $prepend, $remove)", path, k)
			return
		}
	}
	for _, op := range jsonOperators {
		for i, k := range n.keys {
			if k == op.key {
				if values, ok := j.values(n.values[i], path); ok {
					j.emit(n.values[i], path, op.op, values)
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
func (j *jsonOptions) values(n *jsonNode, path string) ([]any, bool) {
	if n.isObj {
		j.fail(n, "%s: expected a value or a list", path)
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
			j.fail(item, "%s: list items must be strings, numbers or booleans", path)
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

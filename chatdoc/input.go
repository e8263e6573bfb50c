package chatdoc

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chatls/chatls/internal/jsonfast"
)

// decodeInput decodes a tool use's JSON object and reports what is wrong.
func (s *bodyScanner) decodeInput(u *ToolUse, f *Fence) {
	span := Span{f.ContentSpan.Start, f.ContentSpan.Start + len(u.RawInput)}
	if span.Len() == 0 {
		span = f.OpenerSpan()
	}
	if jsonfast.IsObjectWithin(u.RawInput, InputMaxNesting) {
		return // the usual case, in one pass; decoded when asked for (ToolUse.Input)
	}
	// Refused: too deep (a valid prefix nests past the limit), or not an
	// object, or not JSON; encoding/json words the last two.
	if jsonNesting(u.RawInput) > InputMaxNesting {
		u.InputError = fmt.Sprintf("the input nests deeper than %d levels", InputMaxNesting)
		s.addDiag(diag(span, SeverityError, CodeToolInputInvalidJSON, u.ID, "%s", messageToolInputPrefix+u.InputError))
		return
	}
	var obj map[string]any
	err := json.Unmarshal([]byte(u.RawInput), &obj) // what the fast reader leaves to it, and the error text
	if err == nil && obj != nil {
		return
	}
	var v any
	if err == nil || json.Unmarshal([]byte(u.RawInput), &v) == nil {
		u.InputError = "expected a JSON object, got " + jsonKind(v)
		s.addDiag(diag(span, SeverityError, CodeToolInputNotObject, u.ID, "%s", messageToolInputPrefix+u.InputError))
		return
	}
	if strings.TrimSpace(u.RawInput) == "" {
		u.InputError = "empty input (expected a JSON object)"
	} else {
		u.InputError = err.Error()
	}
	s.addDiag(diag(span, SeverityError, CodeToolInputInvalidJSON, u.ID, "%s", messageToolInputPrefix+u.InputError))
}

// DecodeInput decodes a tool input's JSON text into a new map; nil when it
// is not a JSON object. A plain function, so that passing it along (to a
// validator that decodes only on a miss) allocates nothing.
func DecodeInput(raw string) map[string]any {
	if obj, ok := jsonfast.DecodeObject(raw); ok {
		return obj
	}
	var obj map[string]any
	if json.Unmarshal([]byte(raw), &obj) != nil {
		return nil
	}
	return obj // nil for JSON null
}

// InputMaxNesting bounds how deeply a tool input may nest objects and
// arrays. Real inputs nest a few levels; a deeper one is refused as
// invalid, so that nothing downstream (hovers, `chatls parse --json`, the
// request to a model) renders text that grows with the square of the depth.
const InputMaxNesting = 100

// jsonNesting is the deepest bracket nesting of s outside strings (a quick
// linear scan before decoding).
func jsonNesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "a value"
}

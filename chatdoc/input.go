package chatdoc

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"
)

// decodeInput decodes a tool use's JSON object and reports what is wrong.
func (s *bodyScanner) decodeInput(u *ToolUse, f *Fence) {
	span := Span{f.ContentSpan.Start, f.ContentSpan.Start + len(u.RawInput)}
	if span.Len() == 0 {
		span = f.OpenerSpan()
	}
	if isObjectWithin(u.RawInput, InputMaxNesting) {
		return // the usual case, without decoding; decoded when asked for (ToolUse.Input)
	}
	// Refused: too deep (a valid prefix nests past the limit), or not an
	// object, or not JSON; encoding/json words the last two.
	if deepest, _ := jsonShape(u.RawInput); deepest > InputMaxNesting {
		u.InputError = fmt.Sprintf("the input nests deeper than %d levels", InputMaxNesting)
		s.addDiag(diag(span, SeverityError, CodeToolInputInvalidJSON, u.ID, "%s", messageToolInputPrefix+u.InputError))
		return
	}
	var obj map[string]any
	err := json.Unmarshal([]byte(u.RawInput), &obj) // the verdict isObjectWithin leaves to it, and the error text
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

// isObjectWithin says whether raw decodes with encoding/json into a
// map[string]any nesting at most maxDepth deep, without building the
// values: every input of a document is checked when it is parsed, and
// decoded only when asked for. encoding/json's validator judges the
// syntax; what it accepts but a decode refuses — a number beyond float64 —
// can only be written with an exponent or hundreds of digits, and such an
// input is left to the full decode (false).
func isObjectWithin(raw string, maxDepth int) bool {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
		i++
	}
	if i == len(raw) || raw[i] != '{' {
		return false
	}
	if deepest, bigNumber := jsonShape(raw); deepest > maxDepth || bigNumber {
		return false
	}
	// json.Valid neither keeps nor changes its argument: no copy of the text.
	return json.Valid(unsafe.Slice(unsafe.StringData(raw), len(raw)))
}

// bigDigits is a run of digits from which a number may be beyond float64
// (its largest has 309 integer digits).
const bigDigits = 300

// jsonShape is the deepest bracket nesting of s outside strings, and
// whether a number there has an exponent or a run of bigDigits digits (a
// quick linear scan before validating or decoding).
func jsonShape(s string) (deepest int, bigNumber bool) {
	depth, digits := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			if digits++; digits >= bigDigits {
				bigNumber = true
			}
			continue
		}
		if (c == 'e' || c == 'E') && digits > 0 {
			bigNumber = true // outside strings only numbers' exponents follow a digit
		}
		digits = 0
		switch c {
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
	return deepest, bigNumber
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

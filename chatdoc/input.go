package chatdoc

import (
	"encoding/json"
	"strings"
)

// decodeInput decodes a tool use's JSON object and reports what is wrong.
func (s *bodyScanner) decodeInput(u *ToolUse, f *Fence) {
	span := Span{f.ContentSpan.Start, f.ContentSpan.Start + len(u.RawInput)}
	if span.Len() == 0 {
		span = f.OpenerSpan
	}
	if obj, ok := decodeJSONObject(u.RawInput); ok {
		u.Input = obj
		return
	}
	var obj map[string]any
	err := json.Unmarshal([]byte(u.RawInput), &obj)
	if err == nil && obj != nil {
		u.Input = obj
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

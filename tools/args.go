package tools

import (
	"encoding/json"
	"math"
)

// Inputs arrive as decoded JSON (float64 or json.Number for numbers) and have
// passed schema validation; these helpers still never panic on odd values.

// StringArg is in[key] when it is a string.
func StringArg(in map[string]any, key string) (string, bool) {
	s, ok := in[key].(string)
	return s, ok
}

// NumberArg is in[key] when it is a finite number, in any of the forms a
// decoder gives.
func NumberArg(in map[string]any, key string) (float64, bool) {
	switch v := in[key].(type) {
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// IntArg returns an integer argument clamped to the int range.
func IntArg(in map[string]any, key string) (int, bool) {
	f, ok := NumberArg(in, key)
	if !ok {
		return 0, false
	}
	switch {
	case f > math.MaxInt32:
		return math.MaxInt32, true
	case f < math.MinInt32:
		return math.MinInt32, true
	}
	return int(f), true
}

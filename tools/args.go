package tools

import (
	"encoding/json"
	"math"
)

// Inputs arrive as decoded JSON (float64 or json.Number for numbers) and have
// passed schema validation; these helpers still never panic on odd values.

func stringArg(in map[string]any, key string) (string, bool) {
	s, ok := in[key].(string)
	return s, ok
}

func numberArg(in map[string]any, key string) (float64, bool) {
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

// intArg returns an integer argument clamped to the int range.
func intArg(in map[string]any, key string) (int, bool) {
	f, ok := numberArg(in, key)
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

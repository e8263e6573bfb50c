package surface

import (
	"encoding/json"
	"strconv"
)

// jsonPathSpan finds, in raw JSON text, the span that a schema error at path
// should point at: the quoted key of the last object member named by path, or
// the value of the last array element. It tolerates any input and reports
// false when the path is not there (the caller then points at the whole input).
// A hand-written scanner because encoding/json does not expose key offsets.
func jsonPathSpan(raw string, path []string) (start, end int, ok bool) {
	i := skipJSONSpace(raw, 0)
	for depth, step := range path {
		last := depth == len(path)-1
		if i >= len(raw) {
			return 0, 0, false
		}
		switch raw[i] {
		case '{':
			keyStart, keyEnd, valueStart, found := findJSONMember(raw, i, step)
			if !found {
				return 0, 0, false
			}
			if last {
				return keyStart, keyEnd, true
			}
			i = valueStart
		case '[':
			index, err := strconv.Atoi(step)
			if err != nil || index < 0 {
				return 0, 0, false
			}
			valueStart, found := findJSONElement(raw, i, index)
			if !found {
				return 0, 0, false
			}
			if last {
				valueEnd, ok := skipJSONValue(raw, valueStart)
				return valueStart, valueEnd, ok
			}
			i = valueStart
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// findJSONMember scans the object starting at raw[open] for the member named
// key and returns its quoted key span and the start of its value.
func findJSONMember(raw string, open int, key string) (keyStart, keyEnd, valueStart int, ok bool) {
	i := skipJSONSpace(raw, open+1)
	for i < len(raw) && raw[i] != '}' {
		if raw[i] != '"' {
			return 0, 0, 0, false
		}
		ke, okStr := skipJSONString(raw, i)
		if !okStr {
			return 0, 0, 0, false
		}
		j := skipJSONSpace(raw, ke)
		if j >= len(raw) || raw[j] != ':' {
			return 0, 0, 0, false
		}
		vs := skipJSONSpace(raw, j+1)
		var name string
		if json.Unmarshal([]byte(raw[i:ke]), &name) == nil && name == key {
			return i, ke, vs, true
		}
		ve, okVal := skipJSONValue(raw, vs)
		if !okVal {
			return 0, 0, 0, false
		}
		i = skipJSONSpace(raw, ve)
		if i < len(raw) && raw[i] == ',' {
			i = skipJSONSpace(raw, i+1)
		}
	}
	return 0, 0, 0, false
}

// findJSONElement returns the start of element index of the array at raw[open].
func findJSONElement(raw string, open, index int) (int, bool) {
	i := skipJSONSpace(raw, open+1)
	for n := 0; i < len(raw) && raw[i] != ']'; n++ {
		if n == index {
			return i, true
		}
		ve, ok := skipJSONValue(raw, i)
		if !ok {
			return 0, false
		}
		i = skipJSONSpace(raw, ve)
		if i < len(raw) && raw[i] == ',' {
			i = skipJSONSpace(raw, i+1)
		}
	}
	return 0, false
}

func skipJSONSpace(raw string, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipJSONString returns the offset just past the string starting at raw[i].
func skipJSONString(raw string, i int) (int, bool) {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// skipJSONValue returns the offset just past the value starting at raw[i].
// Containers are skipped iteratively by bracket depth, so deep nesting costs
// no stack.
func skipJSONValue(raw string, i int) (int, bool) {
	if i >= len(raw) {
		return 0, false
	}
	switch raw[i] {
	case '"':
		return skipJSONString(raw, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); j++ {
			switch raw[j] {
			case '"':
				end, ok := skipJSONString(raw, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	default: // number, true, false, null
		j := i
		for j < len(raw) && raw[j] != ',' && raw[j] != '}' && raw[j] != ']' && !isSpace(raw[j]) {
			j++
		}
		return j, j > i
	}
}

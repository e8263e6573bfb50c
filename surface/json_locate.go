package surface

import (
	"encoding/json"
	"strconv"
	"strings"
)

// jsonLocator finds, in raw JSON text, the spans that schema errors at
// JSON paths should point at. Each object and array on a path is scanned
// once and indexed, so locating every error of an input with 50,000 keys is
// linear, not one scan per error. It tolerates any input. A hand-written
// scanner because encoding/json does not expose key offsets.
type jsonLocator struct {
	raw     string
	objects map[int]map[string]jsonMember // by the offset of '{'
	arrays  map[int][]int                 // element starts, by the offset of '['
}

type jsonMember struct{ keyStart, keyEnd, valueStart int }

func newJSONLocator(raw string) *jsonLocator {
	return &jsonLocator{raw: raw, objects: map[int]map[string]jsonMember{}, arrays: map[int][]int{}}
}

// span is the quoted key of the last object member named by path, or the
// value of the last array element; false when the path is not there (the
// caller then points at the whole input).
func (l *jsonLocator) span(path []string) (start, end int, ok bool) {
	raw := l.raw
	i := skipJSONSpace(raw, 0)
	for depth, step := range path {
		last := depth == len(path)-1
		if i >= len(raw) {
			return 0, 0, false
		}
		switch raw[i] {
		case '{':
			m, found := l.object(i)[step]
			if !found {
				return 0, 0, false
			}
			if last {
				return m.keyStart, m.keyEnd, true
			}
			i = m.valueStart
		case '[':
			index, err := strconv.Atoi(step)
			elems := l.array(i)
			if err != nil || index < 0 || index >= len(elems) {
				return 0, 0, false
			}
			if last {
				valueEnd, ok := skipJSONValue(raw, elems[index])
				return elems[index], valueEnd, ok
			}
			i = elems[index]
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}

// object indexes the members of the object starting at raw[open] (the
// first of a repeated key wins, as the locator always did).
func (l *jsonLocator) object(open int) map[string]jsonMember {
	if m, ok := l.objects[open]; ok {
		return m
	}
	raw := l.raw
	m := map[string]jsonMember{}
	l.objects[open] = m
	i := skipJSONSpace(raw, open+1)
	for i < len(raw) && raw[i] != '}' {
		if raw[i] != '"' {
			return m
		}
		ke, okStr := skipJSONString(raw, i)
		if !okStr {
			return m
		}
		j := skipJSONSpace(raw, ke)
		if j >= len(raw) || raw[j] != ':' {
			return m
		}
		vs := skipJSONSpace(raw, j+1)
		name := raw[i+1 : ke-1]
		if strings.IndexByte(name, '\\') >= 0 {
			_ = json.Unmarshal([]byte(raw[i:ke]), &name)
		}
		if _, dup := m[name]; !dup {
			m[name] = jsonMember{i, ke, vs}
		}
		ve, okVal := skipJSONValue(raw, vs)
		if !okVal {
			return m
		}
		i = skipJSONSpace(raw, ve)
		if i < len(raw) && raw[i] == ',' {
			i = skipJSONSpace(raw, i+1)
		}
	}
	return m
}

// array indexes the element starts of the array starting at raw[open].
func (l *jsonLocator) array(open int) []int {
	if a, ok := l.arrays[open]; ok {
		return a
	}
	raw := l.raw
	var starts []int
	i := skipJSONSpace(raw, open+1)
	for i < len(raw) && raw[i] != ']' {
		starts = append(starts, i)
		ve, ok := skipJSONValue(raw, i)
		if !ok {
			break
		}
		i = skipJSONSpace(raw, ve)
		if i < len(raw) && raw[i] == ',' {
			i = skipJSONSpace(raw, i+1)
		}
	}
	l.arrays[open] = starts
	return starts
}

// jsonPathSpan locates one path (see jsonLocator).
func jsonPathSpan(raw string, path []string) (start, end int, ok bool) {
	return newJSONLocator(raw).span(path)
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

package jsonfast

// Members reads the members of a JSON object text one at a time: each key
// as encoding/json decodes it and the text of its value. It checks the
// whole text as json.Unmarshal into a map[string]any would, building no
// values. A plain loop over Next, where a callback per member (EachMember)
// costs a closure on the heap and an indirect call per member: 16,000
// inputs of a conversation are read so whenever their diagnostics are due.
//
//	m := jsonfast.NewMembers(text)
//	for key, raw, ok := m.Next(); ok; key, raw, ok = m.Next() { … }
//	if !m.Valid() { … }
type Members struct {
	d     jsonDecoder
	state membersState
}

type membersState uint8

const (
	membersStart membersState = iota
	membersInside
	membersDone   // the closing brace and nothing after it but space
	membersFailed // not such an object
)

// NewMembers starts reading text.
func NewMembers(text string) Members { return Members{d: jsonDecoder{s: text}} }

// Next is the next member; ok is false after the last one or at the first
// error (Valid tells which).
func (m *Members) Next() (key, raw string, ok bool) {
	d := &m.d
	switch m.state {
	case membersStart:
		if d.space(); d.i >= len(d.s) || d.s[d.i] != '{' {
			return m.fail()
		}
		d.i++
		if d.space(); d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return m.end()
		}
		m.state = membersInside
	case membersInside:
		more, ok := d.after('}')
		if !ok {
			return m.fail()
		}
		if !more {
			return m.end()
		}
	default:
		return "", "", false
	}
	if d.space(); d.i >= len(d.s) || d.s[d.i] != '"' {
		return m.fail()
	}
	key, ok = d.string()
	if !ok {
		return m.fail()
	}
	if d.space(); d.i >= len(d.s) || d.s[d.i] != ':' {
		return m.fail()
	}
	d.i++
	d.space()
	start := d.i
	if !d.value(1) { // the object itself is depth 1
		return m.fail()
	}
	return key, d.s[start:d.i], true
}

// Valid reports whether the text read so far is a JSON object with
// nothing after it but space; it is final once Next has said false.
func (m *Members) Valid() bool { return m.state == membersDone }

func (m *Members) fail() (string, string, bool) {
	m.state = membersFailed
	return "", "", false
}

func (m *Members) end() (string, string, bool) {
	if m.d.space(); m.d.i != len(m.d.s) {
		return m.fail()
	}
	m.state = membersDone
	return "", "", false
}

// EachMember calls fn with every member of the JSON object text, in order,
// as Members reads them, and reports whether text is such an object and
// fn returned true for every member.
func EachMember(text string, fn func(key, raw string) bool) bool {
	m := NewMembers(text)
	for key, raw, ok := m.Next(); ok; key, raw, ok = m.Next() {
		if !fn(key, raw) {
			return false
		}
	}
	return m.Valid()
}

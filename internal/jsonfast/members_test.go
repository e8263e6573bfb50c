package jsonfast

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// checkMembersAgree holds Members to json.Unmarshal into a map: the same
// verdict, and for an object the same members (each raw value decoding to
// the map's value, the last duplicate winning).
func checkMembersAgree(t *testing.T, s string) {
	t.Helper()
	want, wantOK := stdDecode(s)
	got := map[string]any{}
	m := NewMembers(s)
	for key, raw, ok := m.Next(); ok; key, raw, ok = m.Next() {
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatalf("%q: member %q has the value text %q, which does not decode: %v", s, key, raw, err)
		}
		got[key] = v
	}
	if m.Valid() != wantOK {
		t.Fatalf("%q: Members says valid=%v, encoding/json %v", s, m.Valid(), wantOK)
	}
	if _, _, ok := m.Next(); ok {
		t.Fatalf("%q: a member after the end", s)
	}
	if wantOK && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: members %#v, encoding/json %#v", s, got, want)
	}
}

func TestMembersAgreeWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, " {\n} ", `{"a":1}`, ` {"a" : [1,{"b":"\u00e9"}] , "c":null}  `, `{"a":1,"a":"last"}`,
		`{"k\n\"":"v\\"}`, "{\"inv\xff\":\"\xfe\"}", `{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1}x`, `{"a":1`,
		`{"a":}`, `[1]`, `null`, ``, `{`, `{"a":1e400}`, `{"a":{"b":[}}`, `{"a":1 "b":2}`,
	} {
		checkMembersAgree(t, s)
	}
	deep := func(n int) string { return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + "}" }
	checkMembersAgree(t, deep(10000))
	checkMembersAgree(t, deep(10001))
}

// A reader stops at the first error and stays stopped: the members before
// it were read, nothing after.
func TestMembersStopAtTheFirstError(t *testing.T) {
	m := NewMembers(`{"a":1,"b":tru,"c":3}`)
	var keys []string
	for key, _, ok := m.Next(); ok; key, _, ok = m.Next() {
		keys = append(keys, key)
	}
	if !reflect.DeepEqual(keys, []string{"a"}) || m.Valid() {
		t.Fatalf("keys %v, valid %v; want [a], false", keys, m.Valid())
	}
}

func TestEachMemberStopsWhenToldTo(t *testing.T) {
	var keys []string
	ok := EachMember(`{"a":1,"b":2,"c":3}`, func(key, _ string) bool {
		keys = append(keys, key)
		return key != "b"
	})
	if ok || !reflect.DeepEqual(keys, []string{"a", "b"}) {
		t.Fatalf("ok %v, keys %v; want false, [a b]", ok, keys)
	}
}

package procsup

import (
	"encoding/binary"
	"reflect"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	in := Request{Path: "/usr/bin/bash", Argv: []string{"bash", "-c", "echo 'a\x00b'", ""}, Env: []string{"A=1", "EMPTY="}, Dir: "/tmp/with\nnewline"}
	b := in.Encode()
	if n := binary.LittleEndian.Uint32(b); int(n) != len(b)-4 {
		t.Fatalf("length prefix %d for %d bytes", n, len(b)-4)
	}
	out, err := decodeRequest(b[4:])
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("decoded %+v, %v\nwant %+v", out, err, in)
	}
	// Every truncation is refused, none panics.
	for i := range len(b) - 4 {
		if _, err := decodeRequest(b[4 : 4+i]); err == nil {
			t.Errorf("a request cut to %d bytes decoded", i)
		}
	}
	if _, err := decodeRequest(append(b[4:], 0)); err == nil {
		t.Error("trailing bytes accepted")
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add((&Request{Path: "/bin/true", Argv: []string{"true"}}).Encode()[4:])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRequest(b)
		if err != nil {
			return
		}
		if again := r.Encode(); string(again[4:]) != string(b) {
			t.Errorf("%q decodes to %+v, which encodes as %q", b, r, again[4:])
		}
	})
}

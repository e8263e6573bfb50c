package framing

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// envelopeMembers are the pieces the envelope tests build frames from:
// exact, capitalised and non-ASCII keys, duplicates, a number out of
// float64's range, nested values.
var envelopeMembers = []string{
	`"jsonrpc":"2.0"`, `"id":1`, `"id":"a"`, `"id":1e400`, `"method":"textDocument/didOpen"`, `"method":"x"`,
	`"params":{"textDocument":{"uri":"file:///a","text":"a\"b\\c"}}`, `"params":[1,2]`, `"params":null`,
	`"Method":"shadow"`, `"PARAMS":{}`, `"meta":{"k":[true,false,null]}`, `"result":{"a":1}`, `"error":{"code":-1}`,
	`"extra":{"deep":[[[]]]}`, "\"m\u0435thod\":1", `"\u006dethod":"escaped key"`, `"params":"` + strings.Repeat("x", 100) + `"`,
}

// readEnvelope gives what encoding/json.Unmarshal gives, member for
// member, or refuses what it refuses.
func TestReadEnvelopeMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		n := rng.IntN(6)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = envelopeMembers[rng.IntN(len(envelopeMembers))]
		}
		body := " {" + strings.Join(parts, ",") + "}\n"
		if rng.IntN(10) == 0 { // broken JSON now and then
			body = body[:rng.IntN(len(body))]
		}
		checkEnvelope(t, []byte(body))
	}
}

func checkEnvelope(t *testing.T, body []byte) {
	t.Helper()
	var want envelope
	wantErr := json.Unmarshal(body, &want)
	got, ok := readEnvelope(body)
	if ok != (wantErr == nil) {
		t.Fatalf("%s: readEnvelope ok=%v, encoding/json %v", body, ok, wantErr)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", body, got, want)
	}
}

package framing

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The two shapes Lift serves: didOpen and didChange params.
type openParams struct {
	TextDocument struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int32  `json:"version"`
		Text       string `json:"text"`
	} `json:"textDocument"`
}

type changeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Range *struct {
			Start struct{ Line, Character int } `json:"start"`
		} `json:"range,omitempty"`
		Text string `json:"text"`
	} `json:"contentChanges"`
}

func (p *openParams) restore(l *Lifted) { l.Restore(&p.TextDocument.Text) }

func (p *changeParams) restore(l *Lifted) {
	for i := range p.ContentChanges {
		l.Restore(&p.ContentChanges[i].Text)
	}
}

// textPieces make long texts with every kind of string content: escapes,
// multi-byte and invalid UTF-8, lone surrogates, a forged placeholder.
var textPieces = []string{
	"plain prose ", `\"quoted\" `, `back\\slash `, `\n`, `\t`, `\u00e9`, "é", "😀", `\ud83d\ude00`, `\ud800`, "\xff",
	`\u0000chatls.lifted:x:0`, `\/`, "@You:", "```json",
}

func longText(rng *rand.Rand) string {
	var b strings.Builder
	for b.Len() < 200+rng.IntN(3000) {
		b.WriteString(textPieces[rng.IntN(len(textPieces))])
	}
	return b.String()
}

// liftDecode decodes params through Lift and Restore, as the handlers do.
func liftDecode[P interface{ restore(*Lifted) }](raw []byte, p P) error {
	small, lifted, ok := Lift(raw)
	if !ok {
		return json.Unmarshal(raw, p)
	}
	if err := json.Unmarshal(small, p); err != nil {
		return err
	}
	p.restore(lifted)
	return nil
}

// Whatever the params, decoding through Lift gives what encoding/json gives.
func TestLiftDecodesAsEncodingJSON(t *testing.T) {
	saved := liftMin
	liftMin = 64
	t.Cleanup(func() { liftMin = saved })
	rng := rand.New(rand.NewPCG(7, 8))
	lifts := 0
	for i := range 600 {
		t1, t2 := longText(rng), longText(rng)
		var raw string
		switch i % 6 {
		case 0:
			raw = `{"textDocument":{"uri":"file:///a.chat","languageId":"chat","version":3,"text":"` + t1 + `"}}`
		case 1: // a duplicate: the last one wins
			raw = `{"textDocument":{"text":"` + t1 + `","uri":"file:///a","text":"` + t2 + `"}}`
		case 2: // a key that matches only ignoring case is encoding/json's
			raw = `{"textDocument":{"Text":"` + t1 + `","text":"` + t2 + `"}}`
		case 3:
			raw = `{"textDocument":{"text":"` + t1 + `","Text":"` + t2 + `"}}`
		case 4:
			raw = `{"textDocument":{"uri":"file:///a","version":4},"contentChanges":[{"text":"` + t1 + `"},{"range":{"start":{"line":1,"character":2}},"text":"` + t2 + `"}]}`
		case 5: // broken now and then
			raw = `{"textDocument":{"text":"` + t1 + `"}`
		}
		var wantOpen, gotOpen openParams
		var wantChange, gotChange changeParams
		wantErr := json.Unmarshal([]byte(raw), &wantOpen)
		gotErr := liftDecode([]byte(raw), &gotOpen)
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(gotOpen, wantOpen) {
			t.Fatalf("didOpen shape %d: got %+v (%v), want %+v (%v)", i%6, gotOpen, gotErr, wantOpen, wantErr)
		}
		wantErr = json.Unmarshal([]byte(raw), &wantChange)
		gotErr = liftDecode([]byte(raw), &gotChange)
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(gotChange, wantChange) {
			t.Fatalf("didChange shape %d: got %+v (%v), want %+v (%v)", i%6, gotChange, gotErr, wantChange, wantErr)
		}
		if _, _, ok := Lift([]byte(raw)); ok {
			lifts++
		}
	}
	if lifts < 400 {
		t.Fatalf("only %d of 600 params were lifted: the test did not test Lift", lifts)
	}
}

// A client cannot make Restore swap in another member's text by sending a
// placeholder of its own: the prefix holds a nonce it never sees.
func TestRestoreLeavesForgedPlaceholders(t *testing.T) {
	saved := liftMin
	liftMin = 30 // the long text is lifted (as number 0), the forged placeholder is not
	t.Cleanup(func() { liftMin = saved })
	raw := `{"contentChanges":[{"text":"\u0000chatls.lifted:0"},{"text":"a long text that is lifted, long enough"}]}`
	var p changeParams
	if err := liftDecode([]byte(raw), &p); err != nil {
		t.Fatal(err)
	}
	if p.ContentChanges[0].Text != "\x00chatls.lifted:0" || p.ContentChanges[1].Text != "a long text that is lifted, long enough" {
		t.Fatalf("%q", []string{p.ContentChanges[0].Text, p.ContentChanges[1].Text})
	}
}

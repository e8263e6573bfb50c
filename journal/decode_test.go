package journal

import (
	"encoding/json"
	"testing"
)

// decodeHead agrees with encoding/json on every field the journal's state
// is built from, and on which lines are skipped.
func TestDecodeHeadAgreesWithEncodingJSON(t *testing.T) {
	lines := []string{
		`{"event":"start","document":"/w/a.chat","tool_id":"toolu_1","pid":12,"proc":"p1","time":"2026-12-02T18:00:00.123456789Z"}`,
		`{"event":"finish","document":"/w/a \"b\".chat","tool_id":"toolu_1","pid":12,"proc":"p1","time":"2026-12-02T18:00:01Z","kind":"output","result":"line \"one\"\n\u00e9\ud83d\ude00","is_error":true}`,
		`{"event":"issue","document":"/w/a.chat","tool_id":"toolu_2","pid":3,"time":"2026-12-02T18:00:02+01:00","hash":"abc"}`,
		`{"event":"start","document":"/w/\u0061.chat","tool_id":"toolu_3","pid":3,"time":"2026-12-02T18:00:02Z"}`, // older: no proc
		`{"event":"start","document":null,"tool_id":"toolu_4","pid":3,"time":null}`,
		`{"event":"finish","document":"/w/a.chat","tool_id":"toolu_5","result":{"nested":[1,2,{"x":"y"}]}}`,
		`{"event":"start","document":"/w/a.chat","tool_id":"toolu_6","pid":1,"time":"2026-12-02T18:00:02Z"`, // torn
		`{"event":7,"document":"/w/a.chat"}`,
		`{"event":"start","time":"yesterday"}`,
		`[1,2]`,
		`{"event":"start","pid":1.5}`,
		`{"event":"start","pid":"12"}`,
		`{"event":"finish","is_error":"yes"}`,
		`{"event":"finish","kind":1}`,
		`{"event":"finish","result":null,"kind":null,"is_error":null,"pid":null,"future":{"a":1}}`,
		`{"event":"start"} trailing`,
		``,
	}
	for _, line := range lines {
		var want entry
		wantOK := json.Unmarshal([]byte(line), &want) == nil
		got, ok := decodeHead(line)
		if ok != wantOK {
			t.Errorf("%s: decodeHead ok=%v, encoding/json ok=%v", line, ok, wantOK)
			continue
		}
		if !ok {
			continue
		}
		if got.Event != want.Event || got.Document != want.Document || got.ToolID != want.ToolID ||
			got.Proc != want.Proc || got.Hash != want.Hash || !got.Time.Equal(want.Time) {
			t.Errorf("%s:\n got  %+v\n want %+v", line, got, want)
		}
	}
}

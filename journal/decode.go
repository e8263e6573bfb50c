package journal

import (
	"strings"
	"time"

	"github.com/chatls/chatls/internal/jsonfast"
)

// decodeHead reads what refresh needs of one journal line: every field
// but the finish's result (and its kind and error flag), which Recorded
// reads again by offset when it is asked for. Results are most of the
// file (up to 1 MiB each), and decoding them all with encoding/json made
// every chatls start pay for the user's whole history: 57–105 ms for
// 1,000 calls of 4 KB (BenchmarkOpenWithHistory). The line is still
// checked whole: one that is not a JSON object is skipped, as before.
func decodeHead(line string) (entry, bool) {
	var e entry
	m := jsonfast.NewMembers(line)
	for key, raw, ok := m.Next(); ok; key, raw, ok = m.Next() {
		var dst *string
		switch key {
		case "event":
			dst = &e.Event
		case "document":
			dst = &e.Document
		case "tool_id":
			dst = &e.ToolID
		case "proc":
			dst = &e.Proc
		case "hash":
			dst = &e.Hash
		case "time":
			if raw == "null" {
				continue
			}
			s, ok := jsonfast.Unquote(raw)
			if !ok {
				return entry{}, false
			}
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				return entry{}, false
			}
			e.Time = t
			continue
		default:
			continue // pid, kind, result, is_error: not needed to know the state
		}
		if raw == "null" {
			continue // json.Unmarshal leaves the field as it is
		}
		s, ok := jsonfast.Unquote(raw)
		if !ok {
			return entry{}, false // not a string where one belongs: json.Unmarshal refused it too
		}
		// A clone: without escapes Unquote gives a piece of the line, and
		// the maps would keep every line of the file alive.
		*dst = strings.Clone(s)
	}
	return e, m.Valid()
}

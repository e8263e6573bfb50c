package journal

import (
	"strconv"
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
		case "kind", "result":
			// Not needed to know the state, but of the type json.Unmarshal
			// into entry demands, or the line is skipped as it was.
			if raw != "null" && raw[0] != '"' {
				return entry{}, false
			}
			continue
		case "is_error":
			if raw != "true" && raw != "false" && raw != "null" {
				return entry{}, false
			}
			continue
		case "pid":
			if _, err := strconv.Atoi(raw); err != nil && raw != "null" {
				return entry{}, false
			}
			continue
		default:
			continue // a field of a newer chatls: json.Unmarshal ignores it too
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

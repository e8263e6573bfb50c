package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Compaction moves the older turns, verbatim, into NAME.archive-1.chat and
// replaces them by one @You: message with the compacted line and the
// model's summary; the newest turn stays as it was (SPEC §11).
func TestCompactMovesOldTurnsIntoAnArchive(t *testing.T) {
	cfg := scriptConfig(t, "", map[string]any{"text": "Goal: name the colours. Decided: blue first."})
	cfg += "[providers.replay.models.script]\ncontextWindow = 400\n"
	ts := newTestSession(t, nil, cfg)
	var turns []string
	for i, q := range []string{"red", "green", "blue", "yellow"} {
		turns = append(turns, "@You:\nwhat about "+q+"? "+strings.Repeat("tell me more. ", 10)+"\n\n@Assistant:\n"+q+" is colour "+string(rune('1'+i))+". "+strings.Repeat("It is fine. ", 10)+"\n\n")
	}
	last := "@You:\nand now?\n"
	d, uri := ts.open("colours.chat", strings.Join(turns, "")+last)
	done, err := ts.s.Compact(t.Context(), d)
	if err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(ts.ws, "colours.archive-1.chat")
	if done.Archive != archive || done.Moved == 0 {
		t.Fatalf("compacted %+v", done)
	}
	text := ts.ed.text(uri)
	wantHead := "@You:\n<!-- chatls:compacted " + strconv.Itoa(done.Moved) + " messages into colours.archive-1.chat -->\n"
	if !strings.HasPrefix(text, wantHead) || !strings.Contains(text, "Goal: name the colours. Decided: blue first.") || !strings.HasSuffix(text, turns[3]+last) {
		t.Fatalf("document after compaction:\n%s", text)
	}
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	// Everything that left the document is in the archive, byte for byte.
	if moved := strings.Join(turns[:done.Moved/2], ""); done.Moved%2 != 0 || string(data) != moved {
		t.Errorf("archive of %d messages:\n%q\nwant the moved text:\n%q", done.Moved, data, moved)
	}
}

// A summary request that fails changes nothing and leaves no archive.
func TestCompactWithAFailedSummaryChangesNothing(t *testing.T) {
	cfg := scriptConfig(t, "", map[string]any{"error": map[string]any{"status": 500, "type": "api_error", "message": "boom"}})
	cfg += "[providers.replay.models.script]\ncontextWindow = 400\n[send]\nmaxRetries = 0\n"
	ts := newTestSession(t, nil, cfg)
	text := strings.Repeat("@You:\n"+strings.Repeat("a question ", 30)+"\n\n@Assistant:\n"+strings.Repeat("an answer ", 30)+"\n\n", 4) + "@You:\nnext\n"
	d, uri := ts.open("fail.chat", text)
	if _, err := ts.s.Compact(t.Context(), d); err == nil || !strings.Contains(err.Error(), "nothing changed") {
		t.Fatalf("compact: %v", err)
	}
	if got := ts.ed.text(uri); got != text {
		t.Errorf("the document changed:\n%s", got)
	}
	if m, _ := filepath.Glob(filepath.Join(ts.ws, "*.archive-*")); len(m) != 0 {
		t.Errorf("archives left: %v", m)
	}
}

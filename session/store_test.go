package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// flemma.save_to: the full output goes to the path in the document's
// result store, the result is its head and where it went; a path out of
// the store is refused and the output stays in the result; bash finds the
// store in $FLEMMA_TOOLS_STORE_PATH.
func TestSaveToWritesTheResultStore(t *testing.T) {
	ts := newTestSession(t, nil, "")
	doc := "@You:\ncount\n\n@Assistant:\n" +
		"**Tool Use:** `bash` (`s1`)\n\n```json\n" + `{"command":"seq 1 100","timeout":null,"flemma.save_to":"out/count.txt"}` + "\n```\n\n" +
		"**Tool Use:** `bash` (`s3`)\n\n```json\n" + `{"command":"echo store=$FLEMMA_TOOLS_STORE_PATH","timeout":null}` + "\n```\n\n" +
		"**Tool Use:** `bash` (`s2`)\n\n```json\n" + `{"command":"echo kept","timeout":null,"flemma.save_to":"../../escape.txt"}` + "\n```\n\n" +
		"@You:\n\n**Tool Result:** `s1`\n\n```flemma:tool status=pending\n```\n\n**Tool Result:** `s3`\n\n```flemma:tool status=pending\n```\n\n**Tool Result:** `s2`\n\n```flemma:tool status=pending\n```\n"
	_, uri := ts.open("save.chat", doc)
	ts.ed.typeText(t, uri, "`s1`\n\n```flemma:tool status=pending", "`s1`\n\n```flemma:tool status=approved")
	ts.ed.typeText(t, uri, "`s2`\n\n```flemma:tool status=pending", "`s2`\n\n```flemma:tool status=approved")
	ts.ed.typeText(t, uri, "`s3`\n\n```flemma:tool status=pending", "`s3`\n\n```flemma:tool status=approved")
	var head []string
	for i := 1; i <= savePreviewLines; i++ {
		head = append(head, strconv.Itoa(i))
	}
	ts.ed.waitText(t, uri, "**Tool Result:** `s1`\n\n```\n"+strings.Join(head, "\n")+"\n\n[Output saved: out/count.txt]\n```")
	ts.ed.waitText(t, uri, "kept\n\n[Output not saved: ../../escape.txt is outside the result store ")
	store := filepath.Join(ts.ws, ".flemma", "save.chat")
	ts.ed.waitText(t, uri, "**Tool Result:** `s3`\n\n```\nstore="+store+"\n```") // bash knows the store
	data, err := os.ReadFile(filepath.Join(store, "out", "count.txt"))
	if err != nil || !strings.HasPrefix(string(data), "1\n2\n") || !strings.HasSuffix(string(data), "99\n100") {
		t.Fatalf("the saved output: %q, %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(ts.ws, "..", "escape.txt")); err == nil {
		t.Error("save_to wrote outside the result store")
	}
}

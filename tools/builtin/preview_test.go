package builtin

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chatls/chatls/internal/tooltest"
	"github.com/chatls/chatls/tools"
)

func TestPreviewFormats(t *testing.T) {
	defs := map[string]tools.Definition{}
	for _, tool := range Tools(Options{}) {
		defs[tool.Definition().Name] = tool.Definition()
	}
	tests := []struct{ tool, input, want string }{
		{"bash", `{"command":"make test","label":"running tests","timeout":null}`, "bash: $ make test  # running tests"},
		{"bash", `{"command":"go test ./...","label":"running tests","timeout":null}`, "bash: $ go test ./...  # running tests"},
		{"read", `{"label":"reading config","path":"src/config.lua","offset":null,"limit":50}`, "read: src/config.lua  +0,50  # reading config"},
		{"read", `{"path":"a.txt","offset":10}`, "read: a.txt  +10"},
		{"read", `{"path":"a.txt"}`, "read: a.txt"},
		{"edit", `{"path":"config.lua","oldText":"a","newText":"b","label":"fixing typo"}`, "edit: config.lua  # fixing typo"},
		{"write", `{"path":"out.txt","content":"` + strings.Repeat("x", 2355) + `","label":"saving log"}`, "write: out.txt  (2.3 KB)  # saving log"},
		{"write", `{"path":"a","content":"hi"}`, "write: a  (2 B)"},
		{"grep", `{"pattern":"pattern","glob":"*.go"}`, "grep: /pattern/  *.go"},
		{"grep", `{"pattern":"TODO","path":"src","glob":null,"limit":null,"label":"finding todos"}`, "grep: /TODO/  src  # finding todos"},
		{"find", `{"pattern":"*_test.go","path":"pkg"}`, "find: *_test.go  in pkg"},
		{"ls", `{"path":"pkg","maxDepth":2}`, "ls: pkg  depth=2"},
		{"ls", `{}`, "ls: ."},
		{"calculator", `{"expression":"2 + 2"}`, "calculator: 2 + 2"},
		{"web_fetch", `{"url":"https://go.dev/doc","maxBytes":20480}`, "web_fetch: https://go.dev/doc  (max 20.0 KB)"},
		{"time", `{"format":null}`, "time: iso"},
		{"time", `{"format":"epoch"}`, "time: epoch"},
		{"bash", `{"command":"echo a\necho b\r\necho c"}`, "bash: $ echo a⤶echo b⤶echo c"},
	}
	for _, tt := range tests {
		if got := tools.Preview(defs[tt.tool], tooltest.Decode(t, tt.input), 0); got != tt.want {
			t.Errorf("Preview(%s, %.60s)\n got %q\nwant %q", tt.tool, tt.input, got, tt.want)
		}
	}
}

func TestPreviewShortensRuneSafely(t *testing.T) {
	def := tools.Definition{Name: "bash", Source: "builtin"}
	in := map[string]any{"command": strings.Repeat("日本", 100), "label": "long"}
	got := tools.Preview(def, in, 20)
	if utf8.RuneCountInString(got) != 20 || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("got %q (%d runes)", got, utf8.RuneCountInString(got))
	}
	if got := tools.Preview(def, map[string]any{"command": "ls"}, 80); got != "bash: $ ls" {
		t.Errorf("short: %q", got)
	}
	huge := map[string]any{"command": strings.Repeat("x\n", 5<<20)}
	if got := tools.Preview(def, huge, 80); utf8.RuneCountInString(got) != 80 || !strings.Contains(got, "x⤶x") {
		t.Errorf("huge: %q", got)
	}
}

func BenchmarkPreview(b *testing.B) {
	def := readTool{}.Definition()
	in := map[string]any{"label": "reading config", "path": "src/config.lua", "offset": nil, "limit": 50.0}
	for b.Loop() {
		tools.Preview(def, in, 80)
	}
}

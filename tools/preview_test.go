package tools

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPreviewFormats(t *testing.T) {
	defs := map[string]Definition{}
	for _, tool := range Builtins(BuiltinOptions{}) {
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
		if got := Preview(defs[tt.tool], decode(t, tt.input), 0); got != tt.want {
			t.Errorf("Preview(%s, %.60s)\n got %q\nwant %q", tt.tool, tt.input, got, tt.want)
		}
	}
}

func TestPreviewGenericAndTemplates(t *testing.T) {
	mcp := Definition{Name: "slack:channels_list", Source: "mcp:slack"}
	in := decode(t, `{"b":"v2","a":"v1","t":{"y":1,"x":2},"l":[1,2,3],"n":5,"ok":true,"z":null,"label":"listing"}`)
	want := `slack:channels_list: a="v1", b="v2", n=5, ok=true, z=null, l=[3 items], t={x, y}  # listing`
	if got := Preview(mcp, in, 0); got != want {
		t.Errorf("generic\n got %q\nwant %q", got, want)
	}
	if got := Preview(mcp, map[string]any{}, 0); got != "slack:channels_list" {
		t.Errorf("empty: %q", got)
	}
	mcp.PreviewTemplate = `#{{.channel}} ({{.limit}} messages)`
	if got := Preview(mcp, map[string]any{"channel": "general", "limit": 5.0}, 0); got != "slack:channels_list: #general (5 messages)" {
		t.Errorf("template: %q", got)
	}
	if got := Preview(mcp, map[string]any{"limit": 5.0}, 0); got != "slack:channels_list: # (5 messages)" {
		t.Errorf("template with missing key: %q", got)
	}
	mcp.PreviewTemplate = `{{.channel`
	if got := Preview(mcp, map[string]any{"channel": "general"}, 0); got != `slack:channels_list: channel="general"` {
		t.Errorf("broken template falls back: %q", got)
	}
	// A plugin tool named like a built-in pattern still gets the generic form.
	if got := Preview(Definition{Name: "deploy", Source: "plugin:ops"}, map[string]any{"env": "prod"}, 0); got != `deploy: env="prod"` {
		t.Errorf("plugin: %q", got)
	}
}

func TestPreviewShortensRuneSafely(t *testing.T) {
	def := Definition{Name: "bash", Source: "builtin"}
	in := map[string]any{"command": strings.Repeat("日本", 100), "label": "long"}
	got := Preview(def, in, 20)
	if utf8.RuneCountInString(got) != 20 || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("got %q (%d runes)", got, utf8.RuneCountInString(got))
	}
	if got := Preview(def, map[string]any{"command": "ls"}, 80); got != "bash: $ ls" {
		t.Errorf("short: %q", got)
	}
	huge := map[string]any{"command": strings.Repeat("x\n", 5<<20)}
	if got := Preview(def, huge, 80); utf8.RuneCountInString(got) != 80 || !strings.Contains(got, "x⤶x") {
		t.Errorf("huge: %q", got)
	}
}

func BenchmarkPreview(b *testing.B) {
	def := readTool{}.Definition()
	in := map[string]any{"label": "reading config", "path": "src/config.lua", "offset": nil, "limit": 50.0}
	for b.Loop() {
		Preview(def, in, 80)
	}
}

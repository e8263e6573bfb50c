package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// roundTrip feeds lines to serve and decodes every answer.
func roundTrip(t *testing.T, lines ...string) []map[string]any {
	t.Helper()
	var out strings.Builder
	if err := serve(strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatal(err)
	}
	var answers []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("answer is not one JSON object per line: %q", sc.Text())
		}
		answers = append(answers, m)
	}
	return answers
}

func resultText(t *testing.T, m map[string]any) string {
	t.Helper()
	content := m["content"].([]any)
	return content[0].(map[string]any)["text"].(string)
}

func TestInitDeclaresWordcount(t *testing.T) {
	got := roundTrip(t, `{"type":"init"}`)
	if len(got) != 1 || got[0]["type"] != "init" {
		t.Fatalf("init answer = %v", got)
	}
	tools := got[0]["tools"].([]any)
	tool := tools[0].(map[string]any)
	if tool["name"] != "wordcount" || tool["parameters"] == nil {
		t.Errorf("tool = %v", tool)
	}
}

func TestCall(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "poem.txt"), []byte("one two\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, line, want string
		isError          bool
	}{
		{"text", `{"type":"call","name":"wordcount","call_id":"a","params":{"text":"hello big world","path":null}}`, "1 lines, 3 words, 15 characters", false},
		{"unicode", `{"type":"call","name":"wordcount","call_id":"a","params":{"text":"héllo wörld\n"}}`, "1 lines, 2 words, 12 characters", false},
		{"path", `{"type":"call","name":"wordcount","call_id":"a","params":{"path":"poem.txt"},"cwd":"` + dir + `"}`, "2 lines, 3 words, 14 characters", false},
		{"missing file", `{"type":"call","name":"wordcount","call_id":"a","params":{"path":"nope.txt"},"cwd":"` + dir + `"}`, "no such file", true},
		{"no input", `{"type":"call","name":"wordcount","call_id":"a","params":{}}`, "give either text or path", true},
		{"unknown tool", `{"type":"call","name":"charcount","call_id":"a","params":{"text":""}}`, `unknown tool "charcount"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := roundTrip(t, tt.line)
			if len(got) != 1 {
				t.Fatalf("got %d answers, want 1", len(got))
			}
			if got[0]["call_id"] != "a" || got[0]["type"] != "result" {
				t.Errorf("answer = %v", got[0])
			}
			if text := resultText(t, got[0]); !strings.Contains(text, tt.want) {
				t.Errorf("text = %q, want it to contain %q", text, tt.want)
			}
			if got[0]["is_error"] != tt.isError {
				t.Errorf("is_error = %v, want %v", got[0]["is_error"], tt.isError)
			}
		})
	}
}

func TestIgnoresUnknownMessagesAndGarbage(t *testing.T) {
	got := roundTrip(t, `{"type":"cancel","call_id":"x"}`, `not json`, `{"type":"init"}`)
	if len(got) != 1 || got[0]["type"] != "init" {
		t.Errorf("answers = %v, want only the init answer", got)
	}
}

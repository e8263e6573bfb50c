package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const corpusDir = "../../chatdoc/testdata/corpus"

func TestRunParseJSONShape(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runParse([]string{"--json", filepath.Join(corpusDir, "15-mcp-and-error.chat")}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc struct {
		Frontmatter *struct{} `json:"frontmatter"`
		Messages    []struct {
			Role     string
			ToolUses []struct {
				ID, Name string
				Input    map[string]any
			} `json:"toolUses"`
			ToolResults []struct {
				ID      string
				Status  *string
				Dialect *string
				Content string
			} `json:"toolResults"`
		}
		Diagnostics []any
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Frontmatter != nil || len(doc.Messages) != 6 || doc.Diagnostics == nil {
		t.Fatalf("%+v", doc)
	}
	results := doc.Messages[2].ToolResults
	if results[0].Status != nil || *results[1].Status != "error" || results[1].Dialect != nil {
		t.Fatalf("statuses %+v", results)
	}
	if doc.Messages[1].ToolUses[0].Name != "slack:channels_list" || doc.Messages[1].ToolUses[0].Input["limit"] != 5.0 {
		t.Fatalf("tool uses %+v", doc.Messages[1].ToolUses)
	}
}

func TestRunParseUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runParse([]string{"x.chat"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "usage") {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if code := runParse([]string{"--json", "/nonexistent.chat"}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d", code)
	}
}

func TestRunCheck(t *testing.T) {
	var out, errOut bytes.Buffer
	bad := filepath.Join(corpusDir, "08-malformed.chat")
	if code := runCheck([]string{bad}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if lines[0] != bad+":1:1: warning: Role marker `@You:` must be alone on its line (pre-0.6 form); move the text to the next line" {
		t.Fatalf("first line %q", lines[0])
	}
	if !strings.Contains(out.String(), bad+":34:1: error: Tool use requires a fenced code block with JSON input") {
		t.Fatalf("output:\n%s", out.String())
	}

	out.Reset()
	if code := runCheck([]string{filepath.Join(corpusDir, "01-pending-bash.chat")}, &out, &errOut); code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
}

func TestRunCheckMissingFileReference(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "a.chat")
	os.WriteFile(filepath.Join(dir, "here.txt"), nil, 0o644)
	os.WriteFile(doc, []byte("@You:\nread @./here.txt and @./gone.txt.\n"), 0o644)
	var out, errOut bytes.Buffer
	if code := runCheck([]string{doc}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := strings.TrimSpace(out.String()); got != doc+":2:22: warning: File not found: ./gone.txt" {
		t.Fatalf("got %q", got)
	}
}

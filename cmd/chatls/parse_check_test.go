package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

	// A conversation whose calls wait is not an error, but check says so.
	out.Reset()
	pending := filepath.Join(corpusDir, "01-pending-bash.chat")
	if code := runCheck([]string{pending}, &out, &errOut); code != 0 || out.String() != pending+":18:1: info: 1 placeholder waits to be resolved (the next step in an editor, or chatls send, takes it on)\n" {
		t.Fatalf("exit %d: %q", code, out.String())
	}
	out.Reset()
	done := filepath.Join(t.TempDir(), "done.chat")
	os.WriteFile(done, []byte("@You:\nhi\n\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n\n```json\n{\"command\":\"ls\"}\n```\n\n@You:\n**Tool Result:** `t1`\n\n```\na.go\n```\n"), 0o644)
	if code := runCheck([]string{done}, &out, &errOut); code != 0 || out.Len() != 0 {
		t.Fatalf("a finished conversation: exit %d: %q", code, out.String())
	}
}

// policy check warns about a tool chatls does not have, and a --config
// that names no file is refused rather than ignored.
func TestRunPolicyCheckWarnings(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runPolicy([]string{"check", "frobnicate", "{}"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "warning: frobnicate is not a built-in tool") {
		t.Errorf("unknown tool: exit %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	if code := runPolicy([]string{"check", "bash", `{"command":"rm -rf /"}`}, &out, &errOut); code != 0 || errOut.Len() != 0 {
		t.Errorf("bash: exit %d, stderr %q", code, errOut.String())
	}
	if !strings.Contains(out.String(), "checked `rm -rf /`, write / (rm)") || strings.Contains(out.String(), "nothing unsafe found") {
		t.Errorf("the trace must say what it checked:\n%s", out.String())
	}
	errOut.Reset()
	if code := runPolicy([]string{"check", "bash", "{}", "--config", "/nonexistent.toml"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--config /nonexistent.toml") {
		t.Errorf("missing --config: exit %d, stderr %q", code, errOut.String())
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

// `chatls parse --json` and `chatls check` report the same diagnostics,
// file references included, sorted by position; the flag may follow the file.
func TestRunParseAndCheckAgree(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "a.chat")
	os.WriteFile(doc, []byte("@You:\nread @./gone.txt\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{\"command\":\n```\n"+
		"@You:\n**Tool Result:** `orphan`\n```\nx\n```\nand @./also-gone.txt\n"), 0o644)
	var out, errOut bytes.Buffer
	if code := runParse([]string{doc, "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("parse FILE --json: exit %d: %s", code, errOut.String())
	}
	var parsed struct {
		Diagnostics []struct {
			Range struct {
				Start struct{ Line, Character int }
			}
			Message string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &parsed); err != nil {
		t.Fatal(err)
	}
	var fromParse []string
	for _, d := range parsed.Diagnostics {
		fromParse = append(fromParse, fmt.Sprintf("%d:%s", d.Range.Start.Line+1, d.Message))
	}
	out.Reset()
	runCheck([]string{doc}, &out, &errOut)
	var fromCheck []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		rest := strings.TrimPrefix(line, doc+":")
		lineNo, rest, _ := strings.Cut(rest, ":")
		_, rest, _ = strings.Cut(rest, ": ") // column
		_, msg, _ := strings.Cut(rest, ": ") // severity
		fromCheck = append(fromCheck, lineNo+":"+msg)
	}
	if !slices.Equal(fromParse, fromCheck) || len(fromParse) < 4 {
		t.Fatalf("parse reports\n%q\ncheck reports\n%q", fromParse, fromCheck)
	}
	if !slices.ContainsFunc(fromParse, func(s string) bool { return strings.Contains(s, "File not found: ./also-gone.txt") }) {
		t.Fatalf("no file reference diagnostic: %q", fromParse)
	}
}

// References are checked as Flemma reads them: without `;type=`, URL-decoded,
// in System messages too.
func TestRunCheckFileReferencesLikeFlemma(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "a.chat")
	os.WriteFile(filepath.Join(dir, "here.txt"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "my file.txt"), nil, 0o644)
	os.WriteFile(doc, []byte("@System:\nsee @./rules.md\n@You:\nsee @./here.txt;type=text/plain and @./my%20file.txt and @./here.txt.\n"), 0o644)
	var out, errOut bytes.Buffer
	if code := runCheck([]string{doc}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if got := strings.TrimSpace(out.String()); got != doc+":2:5: warning: File not found: ./rules.md" {
		t.Fatalf("got %q", got)
	}
}

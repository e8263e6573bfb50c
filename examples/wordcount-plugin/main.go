// Command wordcount-plugin is an example chatls plugin (docs/custom-tools.md):
// it speaks newline-delimited JSON on stdin/stdout and offers one tool,
// `wordcount`, that counts lines, words and characters of a text or a file.
//
// Configure it in $XDG_CONFIG_HOME/chatls/config.toml:
//
//	[[tools.plugins]]
//	name = "wordcount"
//	path = "/path/to/wordcount-plugin"
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

func main() {
	if err := serve(os.Stdin, os.Stdout); err != nil {
		// stderr ends up in the chatls log; stdout is for protocol messages only.
		fmt.Fprintln(os.Stderr, "wordcount-plugin:", err)
		os.Exit(1)
	}
}

type message struct {
	Type   string         `json:"type"`
	Name   string         `json:"name,omitempty"`
	CallID string         `json:"call_id,omitempty"`
	Params map[string]any `json:"params,omitempty"`
	Cwd    string         `json:"cwd,omitempty"`
}

type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type result struct {
	Type    string    `json:"type"`
	CallID  string    `json:"call_id"`
	Content []content `json:"content"`
	IsError bool      `json:"is_error"`
}

// schema follows the built-ins' style: every property required, optional
// ones nullable, nothing else allowed.
var schema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "text": {"type": ["string", "null"], "description": "Text to count"},
    "path": {"type": ["string", "null"], "description": "File to count, relative to the document"}
  },
  "required": ["text", "path"],
  "additionalProperties": false
}`)

var initAnswer = map[string]any{
	"type": "init",
	"tools": []map[string]any{{
		"name":        "wordcount",
		"description": "Count lines, words and characters of a text or a file.",
		"parameters":  schema,
		"preview":     `{{with .path}}{{.}}{{else}}{{len .text}} characters of text{{end}}`,
	}},
}

// serve answers messages until in ends. One call at a time is enough here;
// chatls matches answers by call_id, so a plugin may also answer out of order.
func serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	enc := json.NewEncoder(out) // Encode writes one line per message
	for sc.Scan() {
		var msg message
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			fmt.Fprintln(os.Stderr, "wordcount-plugin: ignoring bad line:", err)
			continue
		}
		var answer any
		switch msg.Type {
		case "init":
			answer = initAnswer
		case "call":
			answer = call(msg)
		default:
			continue // "cancel" and future message types
		}
		if err := enc.Encode(answer); err != nil {
			return err
		}
	}
	return sc.Err()
}

func call(msg message) result {
	text, err := input(msg)
	if err == nil && msg.Name != "wordcount" {
		err = fmt.Errorf("unknown tool %q", msg.Name)
	}
	if err != nil {
		return result{Type: "result", CallID: msg.CallID, Content: []content{{"text", err.Error()}}, IsError: true}
	}
	return result{Type: "result", CallID: msg.CallID, Content: []content{{"text", count(text)}}}
}

func input(msg message) (string, error) {
	if p, ok := msg.Params["path"].(string); ok && p != "" {
		if !filepath.IsAbs(p) {
			p = filepath.Join(msg.Cwd, p)
		}
		data, err := os.ReadFile(p)
		return string(data), err
	}
	if t, ok := msg.Params["text"].(string); ok {
		return t, nil
	}
	return "", fmt.Errorf("give either text or path")
}

func count(text string) string {
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	return fmt.Sprintf("%d lines, %d words, %d characters", lines, len(strings.Fields(text)), utf8.RuneCountInString(text))
}

package chatdoc

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"unicode/utf8"
)

// The JSON shape of `chatls parse --json` (SPEC §6). Ranges are LSP ranges:
// 0-based lines, UTF-16 characters.
type (
	jsonPosition struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	jsonRange struct {
		Start jsonPosition `json:"start"`
		End   jsonPosition `json:"end"`
	}
	jsonDocument struct {
		Frontmatter *jsonFrontmatter `json:"frontmatter"`
		Messages    []jsonMessage    `json:"messages"`
		Diagnostics []jsonDiagnostic `json:"diagnostics"`
	}
	jsonFrontmatter struct {
		Language string    `json:"language"`
		Range    jsonRange `json:"range"`
	}
	jsonMessage struct {
		Role        string           `json:"role"`
		Range       jsonRange        `json:"range"`
		ToolUses    []jsonToolUse    `json:"toolUses"`
		ToolResults []jsonToolResult `json:"toolResults"`
		Thinking    []jsonThinking   `json:"thinking"`
		Aborted     *jsonAborted     `json:"aborted"`
		// JobResults (Flemma 0.12) appear only in a message that has some.
		JobResults []jsonJobResult `json:"jobResults,omitempty"`
	}
	jsonThinking struct {
		Provider  *string   `json:"provider"`
		Signature *string   `json:"signature"`
		Redacted  bool      `json:"redacted"`
		Range     jsonRange `json:"range"`
	}
	jsonAborted struct {
		Message string    `json:"message"`
		Range   jsonRange `json:"range"`
	}
	jsonToolUse struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"` // the object as written (compacted); null when invalid
		Range jsonRange       `json:"range"`
	}
	jsonToolResult struct {
		ID      string    `json:"id"`
		Status  *string   `json:"status"`  // null for a finished result
		Dialect *string   `json:"dialect"` // null unless a placeholder
		Content string    `json:"content"`
		Range   jsonRange `json:"range"`
	}
	jsonJobResult struct {
		Job     string    `json:"job"`
		Error   bool      `json:"error"`
		Content string    `json:"content"`
		Range   jsonRange `json:"range"`
	}
	jsonDiagnostic struct {
		Range    jsonRange `json:"range"`
		Severity int       `json:"severity"`
		Code     string    `json:"code"`
		Source   string    `json:"source"`
		Message  string    `json:"message"`
	}
)

// ParseJSON renders the document and the given diagnostics (usually
// d.Diagnostics plus any the caller adds; printed sorted by position) as
// `chatls parse --json` prints them. The output is valid UTF-8 JSON whatever
// bytes the document holds.
func ParseJSON(d *Document, diags []Diagnostic) ([]byte, error) {
	out := jsonDocument{Messages: []jsonMessage{}, Diagnostics: []jsonDiagnostic{}}
	r := func(s Span) jsonRange {
		lr := d.Range(s, UTF16)
		return jsonRange{jsonPosition(lr.Start), jsonPosition(lr.End)}
	}
	if fm := d.Frontmatter; fm != nil {
		out.Frontmatter = &jsonFrontmatter{Language: fm.Language, Range: r(fm.Span)}
	}
	for _, m := range d.Messages() {
		jm := jsonMessage{Role: m.Role, Range: r(m.Span), ToolUses: []jsonToolUse{}, ToolResults: []jsonToolResult{}}
		for _, u := range m.ToolUses {
			input := json.RawMessage("null")
			if u.Valid() {
				var buf bytes.Buffer
				if json.Compact(&buf, []byte(u.RawInput)) == nil {
					input = validUTF8JSON(buf.Bytes())
				}
			}
			jm.ToolUses = append(jm.ToolUses, jsonToolUse{ID: u.ID, Name: u.Name, Input: input, Range: r(u.Span)})
		}
		for _, res := range m.ToolResults {
			jr := jsonToolResult{ID: res.ID, Content: res.Content, Range: r(res.Span)}
			if res.Status != StatusDone {
				st := string(res.Status)
				jr.Status = &st
			}
			if res.Dialect != DialectNone {
				dl := res.Dialect.String()
				jr.Dialect = &dl
			}
			jm.ToolResults = append(jm.ToolResults, jr)
		}
		jm.Thinking = []jsonThinking{}
		for _, t := range m.Thinking() {
			jt := jsonThinking{Redacted: t.Redacted(), Range: r(t.Span)}
			if sig := t.Signature(); sig != nil {
				jt.Provider, jt.Signature = &sig.Provider, &sig.Value
			}
			jm.Thinking = append(jm.Thinking, jt)
		}
		if a := m.Abort(); a != nil {
			jm.Aborted = &jsonAborted{Message: a.Message, Range: r(a.Span)}
		}
		for _, j := range d.JobResultsIn(m) {
			jm.JobResults = append(jm.JobResults, jsonJobResult{Job: j.Job, Error: j.IsError, Content: j.Content, Range: r(j.Span)})
		}
		out.Messages = append(out.Messages, jm)
	}
	diags = slices.Clone(diags)
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].Span.Start < diags[j].Span.Start })
	for _, dg := range diags {
		out.Diagnostics = append(out.Diagnostics, jsonDiagnostic{Range: r(dg.Span), Severity: int(dg.Severity),
			Code: dg.Code, Source: "chatls", Message: dg.Message})
	}
	return json.MarshalIndent(out, "", "  ")
}

// validUTF8JSON replaces each invalid UTF-8 byte of compacted JSON with
// U+FFFD, as encoding/json does for strings (and so for IDs and content).
// Invalid bytes can only be inside strings: Compact rejects them elsewhere.
func validUTF8JSON(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			out = append(out, "\ufffd"...)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

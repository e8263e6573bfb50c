package lspclient

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/chatls/chatls/internal/fileuri"
)

// PathURI turns a local path into a file:// URI.
func PathURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return fileuri.FromPath(abs)
}

// Open sends didOpen for a document with the given text.
func (c *Client) Open(ctx context.Context, uri, text string) error {
	return c.OpenAs(ctx, uri, "chat", text)
}

// OpenAs sends didOpen for a document of another language (a file the
// editor attaches the server to that is not a conversation).
func (c *Client) OpenAs(ctx context.Context, uri, languageID, text string) error {
	c.mu.Lock()
	c.docs[uri] = &Document{URI: uri, Text: text, Version: 1}
	c.mu.Unlock()
	return c.conn.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": languageID, "version": 1, "text": text},
	})
}

// TextEdit is an LSP edit.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// Replace edits the document as a user would (the first occurrence of old
// becomes new) and sends an incremental didChange.
func (c *Client) Replace(ctx context.Context, uri, old, new string) error {
	c.mu.Lock()
	d := c.docs[uri]
	if d == nil {
		c.mu.Unlock()
		return fmt.Errorf("%s is not open", uri)
	}
	i := indexOf(d.Text, old)
	if i < 0 {
		c.mu.Unlock()
		return fmt.Errorf("%q not found in %s", old, uri)
	}
	rng := Range{Start: c.position(d.Text, i), End: c.position(d.Text, i+len(old))}
	c.mu.Unlock()
	return c.Change(ctx, uri, []TextEdit{{Range: rng, NewText: new}})
}

// Change applies edits locally and sends them as one incremental didChange.
func (c *Client) Change(ctx context.Context, uri string, edits []TextEdit) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	d := c.docs[uri]
	if d == nil {
		c.mu.Unlock()
		return fmt.Errorf("%s is not open", uri)
	}
	changes, err := c.applyLocked(d, edits)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	version := d.Version
	c.mu.Unlock()
	return c.sendChange(ctx, uri, version, changes)
}

// ReplaceAll sends a full-text didChange (like Vim's ALE).
func (c *Client) ReplaceAll(ctx context.Context, uri, text string) error {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.mu.Lock()
	d := c.docs[uri]
	if d == nil {
		c.mu.Unlock()
		return fmt.Errorf("%s is not open", uri)
	}
	d.Text = text
	d.Version++
	version := d.Version
	c.cond.Broadcast()
	c.mu.Unlock()
	return c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"text": text}},
	})
}

// Flush sends the client's whole copy of the document as a full-text
// didChange: what a silent client (SilentApply) does some time later.
func (c *Client) Flush(ctx context.Context, uri string) error {
	return c.ReplaceAll(ctx, uri, c.Doc(uri).Text)
}

func (c *Client) sendChange(ctx context.Context, uri string, version int32, changes []map[string]any) error {
	return c.conn.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": changes,
	})
}

// applyLocked applies edits (non-overlapping, any order) to d and returns the
// content changes that describe them, last edit first so each range is valid
// in the text the server has at that point.
func (c *Client) applyLocked(d *Document, edits []TextEdit) ([]map[string]any, error) {
	type span struct {
		start, end int
		text       string
		rng        Range
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, err1 := c.offset(d.Text, e.Range.Start)
		t, err2 := c.offset(d.Text, e.Range.End)
		if err1 != nil || err2 != nil || t < s {
			return nil, fmt.Errorf("bad edit range %+v", e.Range)
		}
		spans = append(spans, span{s, t, e.NewText, e.Range})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start > spans[j].start })
	for i := 1; i < len(spans); i++ {
		if spans[i].end > spans[i-1].start {
			return nil, fmt.Errorf("overlapping edits")
		}
	}
	text := d.Text
	changes := make([]map[string]any, 0, len(spans))
	for _, s := range spans {
		text = text[:s.start] + s.text + text[s.end:]
		changes = append(changes, map[string]any{"range": s.rng, "text": s.text})
	}
	d.Text = text
	d.Version++
	c.cond.Broadcast()
	return changes, nil
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// position converts a byte offset to a position in the negotiated encoding.
func (c *Client) position(text string, offset int) Position {
	line, lineStart := 0, 0
	for i := 0; i < offset; i++ {
		if text[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return Position{Line: line, Character: c.units(text[lineStart:offset])}
}

// PositionOf returns the position of the first occurrence of sub in a document.
func (c *Client) PositionOf(uri, sub string) (Position, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.docs[uri]
	if d == nil {
		return Position{}, fmt.Errorf("%s is not open", uri)
	}
	i := indexOf(d.Text, sub)
	if i < 0 {
		return Position{}, fmt.Errorf("%q not found", sub)
	}
	return c.position(d.Text, i), nil
}

func (c *Client) units(s string) int {
	switch c.enc {
	case "utf-8":
		return len(s)
	case "utf-32":
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// offset converts a position to a byte offset, failing when it is out of range.
func (c *Client) offset(text string, p Position) (int, error) {
	line, i := 0, 0
	for line < p.Line {
		j := indexOf(text[i:], "\n")
		if j < 0 {
			return 0, fmt.Errorf("line %d past the end", p.Line)
		}
		i += j + 1
		line++
	}
	end := i
	for end < len(text) && text[end] != '\n' {
		end++
	}
	lineText := text[i:end]
	units := 0
	for k, r := range lineText {
		if units >= p.Character {
			return i + k, nil
		}
		switch c.enc {
		case "utf-8":
			units += utf8.RuneLen(r)
		case "utf-32":
			units++
		default:
			units += len(utf16.Encode([]rune{r}))
		}
	}
	if p.Character <= units {
		return end, nil
	}
	return 0, fmt.Errorf("character %d past the end of line %d", p.Character, p.Line)
}

// PositionIn converts a byte offset of text to a position in the negotiated
// encoding.
func (c *Client) PositionIn(text string, offset int) Position { return c.position(text, offset) }

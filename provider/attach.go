package provider

import (
	"errors"
	"io/fs"
	"mime"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/chatls/chatls/chatdoc"
)

// MaxAttachment bounds one attached file (the largest any API takes, a
// 32 MB PDF); a larger one stops the send.
const MaxAttachment = 32 << 20

// expand turns a text run of a You or System message into parts: its file
// references become attachments, the text between them is rendered as a
// template.
func (b *promptBuilder) expand(m *chatdoc.Message, s string, span chatdoc.Span) []Part {
	var parts []Part
	addText := func(t string) {
		if t == "" {
			return
		}
		if out, ok := b.render(t, span); ok && out != "" {
			parts = append(parts, Part{Kind: PartText, Text: out})
		}
	}
	for _, ref := range m.FileRefs() {
		if ref.Span.Start < span.Start || ref.Span.End > span.End {
			continue
		}
		raw := b.doc.Slice(ref.Span.Start, ref.Span.End)
		i := strings.Index(s, raw)
		if i < 0 {
			continue
		}
		addText(s[:i])
		s = s[i+len(raw):]
		if f, ok := b.attach(ref); ok {
			parts = append(parts, Part{Kind: PartFile, File: f})
		}
	}
	addText(s)
	return parts
}

// attach reads a referenced file; a missing, unreadable, unsupported or
// too large file is an Error problem at the reference.
func (b *promptBuilder) attach(ref *chatdoc.FileRef) (*Attachment, bool) {
	dir := ""
	if b.opts.DocPath != "" {
		dir = filepath.Dir(b.opts.DocPath)
	}
	path := chatdoc.ResolveFileRef(dir, b.opts.Home, ref.Path)
	if path == "" {
		b.problem(ref.Span, Error, "Can't resolve %s: save the document first", ref.Path)
		return nil, false
	}
	data, err := b.opts.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b.problem(ref.Span, Error, "File not found: %s", ref.Path)
		return nil, false
	case err != nil:
		b.problem(ref.Span, Error, "Can't read %s: %v", ref.Path, err)
		return nil, false
	case len(data) > MaxAttachment:
		b.problem(ref.Span, Error, "%s is too large to attach (%d MB, at most %d MB)", ref.Path, len(data)>>20, MaxAttachment>>20)
		return nil, false
	}
	mt := ref.MIME
	if mt == "" {
		mt = detectMIME(path, data)
	}
	if !isTextMIME(mt) && !isNativeMIME(mt) {
		b.problem(ref.Span, Error, "Unsupported file type for %s: %s (text, PNG, JPEG, GIF, WebP and PDF can be attached; add ;type=text/plain to send it as text)", ref.Path, mt)
		return nil, false
	}
	return &Attachment{Path: ref.Path, MIME: mt, Data: data}, true
}

// detectMIME names a file's type from its extension, then its content;
// UTF-8 text without NUL bytes is text/plain whatever its extension.
func detectMIME(path string, data []byte) string {
	if t := mime.TypeByExtension(strings.ToLower(filepath.Ext(path))); t != "" {
		t, _, _ = strings.Cut(t, ";")
		if isNativeMIME(t) || isTextMIME(t) {
			return t
		}
	}
	sniff := data[:min(len(data), 512)]
	t, _, _ := strings.Cut(http.DetectContentType(sniff), ";")
	if isNativeMIME(t) {
		return t
	}
	if utf8.Valid(data) && !strings.ContainsRune(string(sniff), 0) {
		return "text/plain"
	}
	return t
}

func isTextMIME(t string) bool {
	switch {
	case strings.HasPrefix(t, "text/"):
		return true
	case t == "application/json", t == "application/xml", t == "application/javascript",
		t == "application/x-sh", t == "application/toml", t == "application/yaml", t == "application/x-yaml":
		return true
	}
	return false
}

// isNativeMIME: sent as the API's own image or document attachment.
func isNativeMIME(t string) bool {
	switch t {
	case "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf":
		return true
	}
	return false
}

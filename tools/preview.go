package tools

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/chatls/chatls/internal/clip"
)

// Preview renders the one-line summary of a call shown in inlay hints and
// code action titles (SPEC §3): a built-in's own format (Previewer), a
// custom tool's PreviewTemplate, or the generic `name: key="v", …`. The call's `label`
// becomes `  # label`; newlines show as ⤶; previews longer than maxLen runes
// end in … (maxLen <= 0: no limit).
func Preview(def Definition, input map[string]any, maxLen int) string {
	return PreviewOn(def, "", input, maxLen)
}

// PreviewOn is Preview of a call that runs on a target: `bash@build: $ make`
// (SPEC §8); target "" is this machine.
func PreviewOn(def Definition, target string, input map[string]any, maxLen int) string {
	detail, ok := "", false
	if p, own := builtinNamed(def.Name).(Previewer); own && (def.Source == "builtin" || def.Source == "") {
		detail, ok = p.Preview(input), true
	}
	if !ok && def.PreviewTemplate != "" {
		detail, ok = templatePreview(def.PreviewTemplate, input)
	}
	if !ok {
		detail = genericPreview(input)
	}
	text := def.Name
	if target != "" {
		text += "@" + target
	}
	if detail != "" {
		text += ": " + detail
	}
	if label, _ := StringArg(input, "label"); label != "" {
		text += "  # " + label
	}
	if maxLen > 0 {
		// Bound the work on huge inputs; oneLine at most halves the rune count (CRLF).
		text = clip.Head(text, (2*maxLen+2)*utf8.UTFMax)
	}
	return clip.Runes(oneLine(text), maxLen)
}

var previewTemplates sync.Map // template text → *template.Template or error

// templatePreview runs a custom tool's text/template over its input; any
// error falls back to the generic preview.
func templatePreview(text string, in map[string]any) (string, bool) {
	v, ok := previewTemplates.Load(text)
	if !ok {
		t, err := template.New("preview").Option("missingkey=zero").Parse(text)
		if err != nil {
			v = err
		} else {
			v = t
		}
		previewTemplates.Store(text, v)
	}
	t, ok := v.(*template.Template)
	if !ok {
		return "", false
	}
	var b strings.Builder
	if err := t.Execute(&limitedWriter{w: &b, n: 4096}, in); err != nil && b.Len() == 0 {
		return "", false
	}
	return strings.ReplaceAll(b.String(), "<no value>", ""), true
}

// limitedWriter stops a template from producing an unbounded preview.
type limitedWriter struct {
	w *strings.Builder
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("preview too long")
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	l.w.Write(p)
	l.n -= len(p)
	return len(p), nil
}

// genericPreview: scalars first, then tables, each group sorted by key.
func genericPreview(in map[string]any) string {
	var scalars, tables []string
	keys := make([]string, 0, len(in))
	for k := range in {
		if k != "label" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := in[k].(type) {
		case map[string]any:
			sub := make([]string, 0, len(v))
			for sk := range v {
				sub = append(sub, sk)
			}
			sort.Strings(sub)
			tables = append(tables, fmt.Sprintf("%s={%s}", k, strings.Join(sub, ", ")))
		case []any:
			tables = append(tables, fmt.Sprintf("%s=[%d items]", k, len(v)))
		default:
			scalars = append(scalars, k+"="+scalarPreview(v))
		}
	}
	return strings.Join(append(scalars, tables...), ", ")
}

func scalarPreview(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return `"` + x + `"`
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	if f, ok := NumberArg(map[string]any{"v": v}, "v"); ok {
		return FormatNumber(f)
	}
	return fmt.Sprint(v)
}

// oneLine shows line breaks as ⤶ and drops other control characters.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = DocumentText(s)
	s = strings.ReplaceAll(s, "\t", " ")
	return strings.ReplaceAll(s, "\n", "⤶")
}

package tools

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"

	"github.com/chatls/chatls/internal/clip"
)

// Preview renders the one-line summary of a call shown in inlay hints and
// code action titles (SPEC §3): the built-ins' own formats, a custom tool's
// PreviewTemplate, or the generic `name: key="v", …`. The call's `label`
// becomes `  # label`; newlines show as ⤶; previews longer than maxLen runes
// end in … (maxLen <= 0: no limit).
func Preview(def Definition, input map[string]any, maxLen int) string {
	return PreviewOn(def, "", input, maxLen)
}

// PreviewOn is Preview of a call that runs on a target: `bash@build: $ make`
// (SPEC §8); target "" is this machine.
func PreviewOn(def Definition, target string, input map[string]any, maxLen int) string {
	detail, ok := "", false
	if def.Source == "builtin" || def.Source == "" {
		detail, ok = builtinPreview(def.Name, input)
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
	if label, _ := stringArg(input, "label"); label != "" {
		text += "  # " + label
	}
	if maxLen > 0 {
		// Bound the work on huge inputs; oneLine at most halves the rune count (CRLF).
		text = cutRunes(text, (2*maxLen+2)*utf8.UTFMax)
	}
	return clip.Runes(oneLine(text), maxLen)
}

func builtinPreview(name string, in map[string]any) (string, bool) {
	str := func(k string) string { s, _ := stringArg(in, k); return s }
	num := func(k string) (string, bool) {
		v, ok := numberArg(in, k)
		return formatNumber(v), ok
	}
	parts := []string{}
	add := func(s string) {
		if s != "" {
			parts = append(parts, s)
		}
	}
	switch name {
	case "bash":
		add("$ " + str("command"))
	case "read":
		add(str("path"))
		offset, hasOffset := num("offset")
		limit, hasLimit := num("limit")
		if hasOffset || hasLimit {
			if !hasOffset {
				offset = "0"
			}
			r := "+" + offset
			if hasLimit {
				r += "," + limit
			}
			add(r)
		}
	case "edit":
		add(str("path"))
	case "write":
		add(str("path"))
		if c, ok := stringArg(in, "content"); ok {
			add("(" + formatSize(int64(len(c))) + ")")
		}
	case "grep":
		add("/" + str("pattern") + "/")
		add(str("path"))
		add(str("glob"))
	case "find":
		add(str("pattern"))
		if p := str("path"); p != "" {
			add("in " + p)
		}
	case "ls":
		p := str("path")
		if p == "" {
			p = "."
		}
		add(p)
		if d, ok := num("maxDepth"); ok {
			add("depth=" + d)
		}
	case "git_status", "git_log", "git_diff":
		add(str("path"))
		add(str("ref"))
	case "git_branch":
		if c, _ := in["create"].(bool); c {
			add("create " + str("name"))
			if f := str("from"); f != "" {
				add("from " + f)
			}
		} else {
			add("list")
		}
	case "git_commit":
		add(strconv.Quote(firstLine(str("message"))))
		add(strings.Join(stringList(in["files"]), ", "))
	case "git_push":
		add(cmp.Or(str("remote"), "origin") + " " + cmp.Or(str("branch"), "(current branch)"))
		if f, _ := in["force"].(bool); f {
			add("(force-with-lease)")
		}
	case "diagnostics":
		add(str("path"))
	case "symbols":
		add(str("path"))
		if q := str("query"); q != "" {
			add("query " + q)
		}
	case "hover", "definition", "references":
		line, _ := num("line")
		col, _ := num("column")
		add(str("path") + ":" + line + ":" + col)
	case "mkdir":
		add(str("path"))
	case "delete":
		add(str("path"))
		if r, _ := in["recursive"].(bool); r {
			add("(recursive: the directory and everything in it)")
		}
	case "copy", "move":
		add(str("source") + " → " + str("destination"))
		if o, _ := in["overwrite"].(bool); o {
			add("(overwrite)")
		}
	case "calculator":
		add(str("expression"))
	case "web_fetch":
		add(str("url"))
		if n, ok := numberArg(in, "maxBytes"); ok {
			add("(max " + formatSize(int64(n)) + ")")
		}
	case "time":
		f := str("format")
		if f == "" {
			f = "iso"
		}
		add(f)
	default:
		return "", false
	}
	return strings.Join(parts, "  "), true
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
	if f, ok := numberArg(map[string]any{"v": v}, "v"); ok {
		return formatNumber(f)
	}
	return fmt.Sprint(v)
}

// oneLine shows line breaks as ⤶ and drops other control characters.
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = documentText(s)
	s = strings.ReplaceAll(s, "\t", " ")
	return strings.ReplaceAll(s, "\n", "⤶")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

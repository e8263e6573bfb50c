package builtin

import (
	"bytes"
	"strings"

	"github.com/chatls/chatls/tools"
	"golang.org/x/net/html"
)

// htmlToText renders HTML as readable plain text: the title as a heading,
// headings as `#`, list items as `- `, links as `text (url)` when the URL
// adds information, <pre> kept verbatim, scripts, styles and page chrome
// (nav, footer, forms) dropped, whitespace collapsed.
func htmlToText(data []byte) string {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return tools.DocumentText(string(data))
	}
	w := &textWriter{}
	if title := findTitle(doc); title != "" {
		w.block()
		w.text("# " + title)
		w.block()
	}
	w.node(findBody(doc))
	return strings.TrimSpace(tools.DocumentText(w.b.String()))
}

var droppedElements = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true, "canvas": true,
	"head": true, "nav": true, "footer": true, "form": true, "button": true, "iframe": true, "select": true,
}

var blockElements = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "aside": true,
	"ul": true, "ol": true, "table": true, "tr": true, "blockquote": true, "figure": true, "figcaption": true,
	"dl": true, "dt": true, "dd": true, "hr": true, "address": true, "details": true, "summary": true,
}

type textWriter struct {
	b       strings.Builder
	pending string // separator owed before the next text: "", " ", "\n" or "\n\n"
	pre     int
}

func (w *textWriter) owe(sep string) {
	if w.b.Len() == 0 {
		return
	}
	if separatorRank[sep] > separatorRank[w.pending] {
		w.pending = sep
	}
}

// separatorRank: a stronger break owed replaces a weaker one.
var separatorRank = map[string]int{"": 0, " ": 1, " | ": 2, "\n": 3, "\n\n": 4}

func (w *textWriter) block() { w.owe("\n\n") }
func (w *textWriter) line()  { w.owe("\n") }

func (w *textWriter) text(s string) {
	if s == "" {
		return
	}
	w.b.WriteString(w.pending)
	w.pending = ""
	w.b.WriteString(s)
}

func (w *textWriter) node(n *html.Node) {
	if n == nil {
		return
	}
	switch n.Type {
	case html.TextNode:
		if w.pre > 0 {
			w.text(n.Data)
			return
		}
		words := strings.Fields(n.Data)
		if len(words) == 0 {
			if strings.TrimSpace(n.Data) == "" && n.Data != "" {
				w.owe(" ")
			}
			return
		}
		if startsWithSpace(n.Data) {
			w.owe(" ")
		}
		w.text(strings.Join(words, " "))
		if endsWithSpace(n.Data) {
			w.owe(" ")
		}
		return
	case html.ElementNode:
		if droppedElements[n.Data] {
			return
		}
	case html.CommentNode, html.DoctypeNode:
		return
	}
	name := n.Data
	switch {
	case n.Type != html.ElementNode:
	case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
		w.block()
		w.text(strings.Repeat("#", int(name[1]-'0')) + " ")
		w.pending = ""
		w.children(n)
		w.block()
		return
	case name == "li":
		w.line()
		w.text("- ")
		w.children(n)
		w.line()
		return
	case name == "br":
		w.line()
		return
	case name == "pre":
		w.block()
		w.pre++
		w.children(n)
		w.pre--
		w.block()
		return
	case name == "td" || name == "th":
		w.owe(" ")
		w.children(n)
		w.owe(" | ")
		return
	case name == "img":
		if alt := attr(n, "alt"); alt != "" {
			w.owe(" ")
			w.text("[" + alt + "]")
		}
		return
	case name == "a":
		href := attr(n, "href")
		start := w.b.Len()
		w.children(n)
		linkText := w.b.String()[start:]
		if strings.HasPrefix(href, "http") && !strings.Contains(linkText, href) && linkText != "" {
			w.text(" (" + href + ")")
		}
		return
	case blockElements[name]:
		w.block()
		w.children(n)
		w.block()
		return
	}
	w.children(n)
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func startsWithSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[0])) }
func endsWithSpace(s string) bool {
	return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[len(s)-1]))
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}

func findBody(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.Data == "body" {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if b := findBody(c); b != nil {
			return b
		}
	}
	return nil
}

package frontmatter

import "github.com/chatls/chatls/chatdoc"

// evaluated is a parsed document with its frontmatter's evaluation where
// tests read it (d.Frontmatter.Options); nil Frontmatter: none found.
type evaluated struct {
	*chatdoc.Document
	Frontmatter *Evaluation
}

// parse parses text and evaluates its frontmatter without the memo, so
// that every test runs the evaluation it times or measures.
func parse(text string) evaluated {
	doc := chatdoc.Parse(text)
	e := evaluated{Document: doc}
	if doc.Frontmatter != nil {
		e.Frontmatter = evaluate(doc.Frontmatter)
	}
	return e
}

// Diagnostics are the evaluation's and then the document's, as Diagnostics
// gives them.
func (e evaluated) Diagnostics() []chatdoc.Diagnostic {
	var out []chatdoc.Diagnostic
	if e.Frontmatter != nil {
		out = append(out, e.Frontmatter.Diagnostics...)
	}
	return append(out, e.Document.Diagnostics()...)
}

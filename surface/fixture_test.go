package surface_test

// Fixture tests: every corpus document goes through the real server (in
// process, over net.Pipe, with the scripted editor of internal/lspclient) in
// utf-16 and utf-8. Each testdata/fixtures/NAME.txtar names its corpus
// document, lists cursor markers, and holds golden sections rendered so that
// they do not depend on the encoding: ranges are shown as line numbers and
// the text they cover, inlay hints inline in the text, code actions as
// unified diffs, semantic tokens by name. Both encodings must render the
// goldens exactly. Regenerate with:
//
//	go test ./surface -run TestFixtures -update

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aymanbagabas/go-udiff"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/server"
	"github.com/chatls/chatls/surface"
)

var update = flag.Bool("update", false, "rewrite the golden sections of testdata/fixtures")

var encodings = []struct {
	name string
	enc  chatdoc.Encoding
}{{"utf-16", chatdoc.UTF16}, {"utf-8", chatdoc.UTF8}}

// corpusDir holds the corpus documents, stored once for every package's tests.
var corpusDir = filepath.Join("..", "chatdoc", "testdata", "corpus")

func TestFixtures(t *testing.T) {
	corpusFiles, _ := filepath.Glob(filepath.Join(corpusDir, "*.chat"))
	extra, _ := filepath.Glob(filepath.Join("testdata", "extra", "*.chat"))
	corpusFiles = append(corpusFiles, extra...)
	if len(corpusFiles) == 0 {
		t.Fatal("no corpus documents")
	}
	for _, cf := range corpusFiles {
		name := strings.TrimSuffix(filepath.Base(cf), ".chat")
		t.Run(name, func(t *testing.T) { runFixture(t, cf, filepath.Join("testdata", "fixtures", name+".txtar")) })
	}
}

func runFixture(t *testing.T, corpusPath, fixturePath string) {
	text, err := os.ReadFile(corpusPath)
	if err != nil {
		t.Fatal(err)
	}
	ar := &archive{Comment: []byte("corpus: " + filepath.Base(corpusPath) + "\n")}
	if b, err := os.ReadFile(fixturePath); err == nil {
		ar = parseArchive(b)
	} else if !*update {
		t.Fatalf("missing %s (run with -update)", fixturePath)
	}
	markers := section(ar, "markers")

	var first map[string]string
	for _, e := range encodings {
		got := render(t, string(text), e.name, e.enc, markers)
		if first == nil {
			first = got
			continue
		}
		for _, k := range sortedKeys(first) {
			if diff := cmp.Diff(first[k], got[k]); diff != "" {
				t.Errorf("%s: %s renders differently from %s (-%s +%s):\n%s", k, e.name, encodings[0].name, encodings[0].name, e.name, diff)
			}
		}
	}
	if *update {
		files := []archiveFile{{Name: "markers", Data: []byte(markers)}}
		for _, k := range goldenOrder {
			files = append(files, archiveFile{Name: k, Data: []byte(first[k])})
		}
		ar.Files = files
		if err := os.MkdirAll(filepath.Dir(fixturePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixturePath, formatArchive(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, k := range goldenOrder {
		if diff := cmp.Diff(section(ar, k), first[k]); diff != "" {
			t.Errorf("%s (-golden +got):\n%s", k, diff)
		}
	}
}

var goldenOrder = []string{"diagnostics", "inlay hints", "code actions", "code lenses", "hover", "semantic tokens", "symbols", "folding", "links", "completion", "selection"}

func section(ar *archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// editor is one in-process server session with one open document.
type editor struct {
	t    *testing.T
	c    *lspclient.Client
	ctx  context.Context
	uri  string
	ws   string
	doc  *chatdoc.Document
	enc  chatdoc.Encoding
	text string
}

// openEditor opens text as ws/doc.chat; files (paths relative to ws) are
// created first, for `@./file` references that must resolve.
func openEditor(t *testing.T, text, encName string, enc chatdoc.Encoding, files ...string) *editor {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		path := filepath.Join(ws, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("fixture file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(base, "config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(base, "state"))
	t.Setenv("TMPDIR", base)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	srv := server.New(server.Options{Logger: zap.NewNop(), Version: "test", StateDir: filepath.Join(base, "state"),
		UserConfigPath: filepath.Join(base, "config", "config.toml"), NoCustomTools: true})
	serverSide, clientSide := net.Pipe()
	done := make(chan struct{})
	go func() { srv.Serve(serverSide); close(done) }()
	c := lspclient.Connect(ctx, clientSide, lspclient.Options{Encoding: encName, RootDir: ws})
	t.Cleanup(func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		_ = c.Shutdown(sctx)
		select {
		case <-done:
		case <-sctx.Done():
		}
	})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	e := &editor{t: t, c: c, ctx: ctx, uri: lspclient.PathURI(filepath.Join(ws, "doc.chat")), ws: ws, doc: chatdoc.Parse(text), enc: enc, text: text}
	if err := c.Open(ctx, e.uri, text); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitFor(20*time.Second, "diagnostics", func(s *lspclient.State) bool {
		for _, ev := range s.Events() {
			if ev.Kind == "diagnostics" && ev.URI == e.uri {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *editor) call(method string, params map[string]any, result any) {
	e.t.Helper()
	params["textDocument"] = map[string]any{"uri": e.uri}
	if err := e.c.Call(e.ctx, method, params, result); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
}

// wireRange is an LSP range as it comes off the wire.
type wireRange struct {
	Start wirePos `json:"start"`
	End   wirePos `json:"end"`
}

type wirePos struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

func (e *editor) span(r wireRange) chatdoc.Span {
	return e.doc.Span(chatdoc.Range{Start: e.pos(r.Start), End: e.pos(r.End)}, e.enc)
}

func (e *editor) pos(p wirePos) chatdoc.Position {
	return chatdoc.Position{Line: p.Line, Character: p.Character}
}

func (e *editor) wire(off int) wirePos {
	p := e.doc.Lines.Position(off, e.enc)
	return wirePos{p.Line, p.Character}
}

func (e *editor) wireSpan(s chatdoc.Span) wireRange { return wireRange{e.wire(s.Start), e.wire(s.End)} }

// where renders a range as "L3 "covered text"" (1-based line). The
// mapper clamps a character past the end of its line, which would hide a
// range that covers a line's "\r": such ends are flagged.
func (e *editor) where(r wireRange) string {
	s := e.span(r)
	return fmt.Sprintf("L%d %s%s", r.Start.Line+1, quote(e.text[s.Start:s.End]), e.pastLineEnd(r.Start)+e.pastLineEnd(r.End))
}

// pastLineEnd is " [past line end]" when p's character lies beyond the
// text of its line (the line ending excluded).
func (e *editor) pastLineEnd(p wirePos) string {
	if p.Line >= e.doc.Lines.LineCount() {
		return ""
	}
	start := e.doc.Lines.LineStart(p.Line)
	end := start + strings.IndexByte(e.text[start:]+"\n", '\n')
	end -= len(e.text[start:end]) - len(strings.TrimSuffix(e.text[start:end], "\r"))
	if p.Character > e.doc.Lines.Position(end, e.enc).Character {
		return " [past line end]"
	}
	return ""
}

// quote shows text in one line, cutting long stretches in the middle.
func quote(s string) string {
	if len(s) > 60 {
		s = s[:28] + "…" + s[len(s)-28:]
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return `"` + strings.NewReplacer("\r", `\r`, "\n", `\n`, `"`, `\"`).Replace(s) + `"`
}

func (e *editor) scrub(s string) string {
	base := filepath.Dir(e.ws)
	return strings.NewReplacer(lspclient.PathURI(e.ws), "file://$WS", e.ws, "$WS", lspclient.PathURI(base), "file://$TMP", base, "$TMP").Replace(s)
}

// markerList parses "KIND TEXT" lines; TEXT holds "|" at the cursor and
// "\\n" for a line break, and is found at its first occurrence in the document.
// "file PATH" lines are not markers (see fixtureFiles).
func (e *editor) markerList(markers string) (out []struct {
	kind, line string
	off        int
}) {
	for _, line := range strings.Split(markers, "\n") {
		kind, pattern, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok || strings.HasPrefix(line, "#") || kind == "file" {
			continue
		}
		pattern = strings.ReplaceAll(pattern, `\n`, "\n")
		cursor := strings.Index(pattern, "|")
		i := strings.Index(e.text, strings.Replace(pattern, "|", "", 1))
		if cursor < 0 || i < 0 {
			e.t.Fatalf("marker %q not found", line)
		}
		out = append(out, struct {
			kind, line string
			off        int
		}{kind, line, i + cursor})
	}
	return out
}

// fixtureFiles are the "file PATH" lines of the markers section: files
// that exist in the workspace beside the document.
func fixtureFiles(markers string) []string {
	var files []string
	for _, line := range strings.Split(markers, "\n") {
		if path, ok := strings.CutPrefix(strings.TrimSpace(line), "file "); ok {
			files = append(files, strings.TrimSpace(path))
		}
	}
	return files
}

func render(t *testing.T, text, encName string, enc chatdoc.Encoding, markers string) map[string]string {
	e := openEditor(t, text, encName, enc, fixtureFiles(markers)...)
	return map[string]string{
		"diagnostics":     e.diagnostics(),
		"inlay hints":     e.inlayHints(),
		"code actions":    e.codeActions(),
		"code lenses":     e.codeLenses(),
		"hover":           e.hovers(),
		"semantic tokens": e.semanticTokens(),
		"symbols":         e.symbols(),
		"folding":         e.folding(),
		"links":           e.links(),
		"completion":      e.completion(markers),
		"selection":       e.selection(markers),
	}
}

func (e *editor) diagnostics() string {
	var b strings.Builder
	for _, d := range e.c.Diagnostics(e.uri) {
		r := wireRange{wirePos{d.Range.Start.Line, d.Range.Start.Character}, wirePos{d.Range.End.Line, d.Range.End.Character}}
		fmt.Fprintf(&b, "%s %s %s: %s\n", e.where(r), severityName(d.Severity), d.Code, e.scrub(d.Message))
	}
	return b.String()
}

func severityName(s int) string {
	return map[int]string{1: "error", 2: "warning", 3: "info", 4: "hint"}[s]
}

func (e *editor) inlayHints() string {
	var hints []struct {
		Position wirePos `json:"position"`
		Label    string  `json:"label"`
	}
	e.call("textDocument/inlayHint", map[string]any{"range": e.wireSpan(chatdoc.Span{Start: 0, End: len(e.text)})}, &hints)
	if len(hints) == 0 {
		return ""
	}
	out := e.text
	for i := len(hints) - 1; i >= 0; i-- {
		off := e.doc.Span(chatdoc.Range{Start: e.pos(hints[i].Position), End: e.pos(hints[i].Position)}, e.enc).Start
		out = out[:off] + " ⟪" + hints[i].Label + "⟫" + out[off:]
	}
	return out
}

type wireEdit struct {
	Range   wireRange `json:"range"`
	NewText string    `json:"newText"`
}

type wireAction struct {
	Title       string `json:"title"`
	IsPreferred bool   `json:"isPreferred"`
	Edit        *struct {
		Changes         map[string][]wireEdit `json:"changes"`
		DocumentChanges []struct {
			Edits []wireEdit `json:"edits"`
		} `json:"documentChanges"`
	} `json:"edit"`
	Command *struct {
		Command   string `json:"command"`
		Arguments []any  `json:"arguments"`
	} `json:"command"`
}

// codeActions asks at every diagnostic (with it in the context) and every
// tool header, and prints each distinct action once, where it first appears.
func (e *editor) codeActions() string {
	type place struct {
		r     wireRange
		diags []lspclient.Diagnostic
	}
	var places []place
	for _, d := range e.c.Diagnostics(e.uri) {
		r := wireRange{wirePos{d.Range.Start.Line, d.Range.Start.Character}, wirePos{d.Range.End.Line, d.Range.End.Character}}
		places = append(places, place{r, []lspclient.Diagnostic{d}})
	}
	for _, u := range e.doc.ToolUses() {
		places = append(places, place{r: e.wireSpan(u.HeaderSpan)})
	}
	for _, r := range e.doc.ToolResults() {
		places = append(places, place{r: e.wireSpan(r.HeaderSpan)})
	}
	seen := map[string]bool{}
	var b strings.Builder
	for _, p := range places {
		diags := p.diags
		if diags == nil {
			diags = []lspclient.Diagnostic{}
		}
		var actions []wireAction
		e.call("textDocument/codeAction", map[string]any{"range": p.r, "context": map[string]any{"diagnostics": diags}}, &actions)
		var chunk strings.Builder
		for _, a := range actions {
			rendered := e.renderAction(a)
			if seen[rendered] {
				continue
			}
			seen[rendered] = true
			chunk.WriteString(rendered)
		}
		if chunk.Len() > 0 {
			fmt.Fprintf(&b, "== at %s\n%s", e.where(p.r), chunk.String())
		}
	}
	return b.String()
}

func (e *editor) renderAction(a wireAction) string {
	var b strings.Builder
	star := ""
	if a.IsPreferred {
		star = " (preferred)"
	}
	fmt.Fprintf(&b, "%s%s\n", a.Title, star)
	if a.Command != nil {
		args, _ := json.Marshal(a.Command.Arguments)
		fmt.Fprintf(&b, "  command %s %s\n", a.Command.Command, e.scrub(string(args)))
	}
	if a.Edit != nil {
		var edits []wireEdit
		for _, es := range a.Edit.Changes {
			edits = append(edits, es...)
		}
		for _, dc := range a.Edit.DocumentChanges {
			edits = append(edits, dc.Edits...)
		}
		var ce []chatdoc.TextEdit
		for _, we := range edits {
			ce = append(ce, chatdoc.TextEdit{Span: e.span(we.Range), NewText: we.NewText})
		}
		after := chatdoc.ApplyEdits(e.text, ce)
		b.WriteString(udiff.Unified("a/doc.chat", "b/doc.chat", e.text, after))
	}
	return b.String()
}

// codeLenses lists each lens as its line, title and command.
func (e *editor) codeLenses() string {
	var lenses []struct {
		Range   wireRange `json:"range"`
		Command *struct {
			Title     string `json:"title"`
			Command   string `json:"command"`
			Arguments []any  `json:"arguments"`
		} `json:"command"`
	}
	e.call("textDocument/codeLens", map[string]any{}, &lenses)
	var b strings.Builder
	for _, l := range lenses {
		if l.Command == nil {
			fmt.Fprintf(&b, "%s (unresolved)\n", e.where(l.Range))
			continue
		}
		args, _ := json.Marshal(l.Command.Arguments)
		fmt.Fprintf(&b, "%s %s → %s %s\n", e.where(l.Range), l.Command.Title, l.Command.Command, e.scrub(string(args)))
	}
	return b.String()
}

func (e *editor) hovers() string {
	var b strings.Builder
	var at []chatdoc.Span
	for _, u := range e.doc.ToolUses() {
		at = append(at, u.NameSpan())
	}
	for _, r := range e.doc.ToolResults() {
		at = append(at, r.IDSpan())
	}
	for _, s := range at {
		var h *struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		}
		e.call("textDocument/hover", map[string]any{"position": e.wire(s.Start)}, &h)
		if h == nil {
			continue
		}
		fmt.Fprintf(&b, "== at %s\n%s\n", e.where(e.wireSpan(s)), strings.TrimRight(e.scrub(h.Contents.Value), "\n"))
	}
	return b.String()
}

func (e *editor) semanticTokens() string {
	var res struct {
		Data []uint32 `json:"data"`
	}
	e.call("textDocument/semanticTokens/full", map[string]any{}, &res)
	legend := surface.SemanticTokensLegend()
	var b strings.Builder
	line, char := 0, 0
	for i := 0; i+4 < len(res.Data); i += 5 {
		if res.Data[i] > 0 {
			line, char = line+int(res.Data[i]), int(res.Data[i+1])
		} else {
			char += int(res.Data[i+1])
		}
		name := string(legend.TokenTypes[res.Data[i+3]])
		for bit, mod := range legend.TokenModifiers {
			if res.Data[i+4]&(1<<bit) != 0 {
				name += "+" + string(mod)
			}
		}
		r := wireRange{wirePos{line, char}, wirePos{line, char + int(res.Data[i+2])}}
		fmt.Fprintf(&b, "%s %s\n", e.where(r), name)
	}
	return b.String()
}

type wireSymbol struct {
	Name           string       `json:"name"`
	Detail         string       `json:"detail"`
	Range          wireRange    `json:"range"`
	SelectionRange wireRange    `json:"selectionRange"`
	Children       []wireSymbol `json:"children"`
}

func (e *editor) symbols() string {
	var syms []wireSymbol
	e.call("textDocument/documentSymbol", map[string]any{}, &syms)
	var b strings.Builder
	var walk func([]wireSymbol, string)
	walk = func(ss []wireSymbol, indent string) {
		for _, s := range ss {
			fmt.Fprintf(&b, "%s%s | %s | L%d-L%d select %s\n", indent, s.Name, s.Detail, s.Range.Start.Line+1, s.Range.End.Line+1, e.where(s.SelectionRange))
			walk(s.Children, indent+"  ")
		}
	}
	walk(syms, "")
	return b.String()
}

func (e *editor) folding() string {
	var folds []struct {
		StartLine int    `json:"startLine"`
		EndLine   int    `json:"endLine"`
		Kind      string `json:"kind"`
	}
	e.call("textDocument/foldingRange", map[string]any{}, &folds)
	var b strings.Builder
	for _, f := range folds {
		fmt.Fprintf(&b, "L%d-L%d %s\n", f.StartLine+1, f.EndLine+1, f.Kind)
	}
	return b.String()
}

func (e *editor) links() string {
	var links []struct {
		Range  wireRange `json:"range"`
		Target string    `json:"target"`
	}
	e.call("textDocument/documentLink", map[string]any{}, &links)
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%s → %s\n", e.where(l.Range), e.scrub(l.Target))
	}
	return b.String()
}

func (e *editor) completion(markers string) string {
	var b strings.Builder
	for _, m := range e.markerList(markers) {
		if m.kind != "complete" {
			continue
		}
		var items []struct {
			Label    string    `json:"label"`
			TextEdit *wireEdit `json:"textEdit"`
		}
		e.call("textDocument/completion", map[string]any{"position": e.wire(m.off)}, &items)
		var labels []string
		for _, it := range items {
			labels = append(labels, it.Label)
		}
		fmt.Fprintf(&b, "== %s\n%s\n", m.line, strings.Join(labels, " "))
		if len(items) > 0 && items[0].TextEdit != nil {
			after := chatdoc.ApplyEdits(e.text, []chatdoc.TextEdit{{Span: e.span(items[0].TextEdit.Range), NewText: items[0].TextEdit.NewText}})
			ls := strings.LastIndexByte(e.text[:m.off], '\n') + 1 // edits start on the cursor line
			le := strings.IndexByte(after[ls:], '\n')
			if le < 0 {
				le = len(after) - ls
			}
			fmt.Fprintf(&b, "first accepted: %s\n", quote(strings.TrimSuffix(after[ls:ls+le], "\r")))
		}
	}
	return b.String()
}

func (e *editor) selection(markers string) string {
	var b strings.Builder
	for _, m := range e.markerList(markers) {
		if m.kind != "select" {
			continue
		}
		type sel struct {
			Range  wireRange `json:"range"`
			Parent *sel      `json:"parent"`
		}
		var res []sel
		e.call("textDocument/selectionRange", map[string]any{"positions": []wirePos{e.wire(m.off)}}, &res)
		fmt.Fprintf(&b, "== %s\n", m.line)
		for _, r := range res {
			for s := &r; s != nil; s = s.Parent {
				fmt.Fprintf(&b, "%s\n", e.where(s.Range))
			}
		}
	}
	return b.String()
}

// archive is the txtar format (comment, then "-- name --" sections). A few
// lines here rather than go-internal/txtar, which now pulls golang.org/x/tools
// into go.sum.
type archive struct {
	Comment []byte
	Files   []archiveFile
}

type archiveFile struct {
	Name string
	Data []byte
}

func parseArchive(b []byte) *archive {
	ar := &archive{}
	cur := &ar.Comment
	for _, line := range strings.SplitAfter(string(b), "\n") {
		trimmed := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			ar.Files = append(ar.Files, archiveFile{Name: trimmed[3 : len(trimmed)-3]})
			cur = &ar.Files[len(ar.Files)-1].Data
			continue
		}
		*cur = append(*cur, line...)
	}
	return ar
}

func formatArchive(ar *archive) []byte {
	var b []byte
	b = append(b, ar.Comment...)
	for _, f := range ar.Files {
		b = append(b, "-- "+f.Name+" --\n"...)
		b = append(b, f.Data...)
		if len(f.Data) > 0 && f.Data[len(f.Data)-1] != '\n' {
			b = append(b, '\n')
		}
	}
	return b
}

package chatdoc

import (
	"slices"
	"testing"
)

// References are read as Flemma reads them, so that `chatls check` flags
// exactly the files Flemma would fail to attach.
func TestFileRefsReadLikeFlemma(t *testing.T) {
	text := "@System:\nrules in @./rules.md\n" +
		"@You:\nsee @./here.txt;type=text/plain and @./my%20file.txt, @./a+b.txt (@../up/x.go).\n" +
		"@./img.png;type=image/png. @./bad%zz @./semi;x.txt @./dir/ @./\n" +
		"```\n@./in-fence.txt\n```\n" +
		"@Assistant:\n@./not-recorded.txt\n"
	d := Parse(text)
	type ref struct{ raw, path, mime string }
	var got []ref
	for _, m := range d.Messages() {
		for _, r := range m.FileRefs() {
			got = append(got, ref{d.Slice(r.Span.Start, r.Span.End), r.Path, r.MIME})
		}
	}
	want := []ref{
		{"@./rules.md", "./rules.md", ""},
		{"@./here.txt;type=text/plain", "./here.txt", "text/plain"},
		{"@./my%20file.txt", "./my file.txt", ""},
		{"@./a+b.txt", "./a b.txt", ""},
		{"@../up/x.go", "../up/x.go", ""},
		{"@./img.png;type=image/png", "./img.png", "image/png"},
		{"@./bad%zz", "./bad%zz", ""},
		{"@./semi;x.txt", "./semi;x.txt", ""},
		{"@./dir", "./dir", ""},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("refs\n got %q\nwant %q", got, want)
	}

	var asked []string
	diags := FileRefDiagnostics(d, func(p string) bool { asked = append(asked, p); return p != "./my file.txt" })
	if len(diags) != 1 || diags[0].Message != "File not found: ./my file.txt" || d.Slice(diags[0].Span.Start, diags[0].Span.End) != "@./my%20file.txt" {
		t.Fatalf("diagnostics %+v", diags)
	}
	if !slices.Contains(asked, "./here.txt") || slices.Contains(asked, "./here.txt;type=text/plain") {
		t.Fatalf("asked %q", asked)
	}
}

// `@~/` names a file under home and `@//` an absolute path (SPEC §1, as
// Flemma's rewriter reads them); a bare prefix names nothing.
func TestFileRefsHomeAndAbsolute(t *testing.T) {
	d := Parse("@You:\nsee @~/notes/a.md, @//tmp/x%20y.txt;type=text/plain and @~/ @// mail@//x\n")
	var got [][2]string
	for _, r := range d.Messages()[0].FileRefs() {
		got = append(got, [2]string{d.Slice(r.Span.Start, r.Span.End), r.Path})
	}
	want := [][2]string{{"@~/notes/a.md", "~/notes/a.md"}, {"@//tmp/x%20y.txt;type=text/plain", "/tmp/x y.txt"}}
	if !slices.Equal(got, want) {
		t.Fatalf("refs\n got %q\nwant %q", got, want)
	}
	for _, c := range []struct{ dir, home, path, want string }{
		{"/doc", "/home/u", "~/notes/a.md", "/home/u/notes/a.md"},
		{"/doc", "", "~/a", ""},
		{"/doc", "/home/u", "/tmp/x", "/tmp/x"},
		{"/doc/sub", "/home/u", "../up/./x.go", "/doc/up/x.go"},
		{"", "/home/u", "./x", ""},
		{"", "/home/u", "/abs", "/abs"},
	} {
		if got := ResolveFileRef(c.dir, c.home, c.path); got != c.want {
			t.Errorf("ResolveFileRef(%q, %q, %q) = %q, want %q", c.dir, c.home, c.path, got, c.want)
		}
	}
}

package tools

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTailRingKeepsLastBytes(t *testing.T) {
	var all bytes.Buffer
	r := tailRing{buf: make([]byte, 10)}
	for i, chunk := range []string{"abc", "defgh", "ijklmnopq", "r", "0123456789ABCDEF", "xyz"} {
		r.write([]byte(chunk))
		all.WriteString(chunk)
		want := all.String()
		if len(want) > 10 {
			want = want[len(want)-10:]
		}
		if got := string(r.bytes()); got != want {
			t.Fatalf("after chunk %d: %q, want %q", i, got, want)
		}
	}
}

func TestHeadAndTailLines(t *testing.T) {
	s := "a\nbb\nccc\ndddd\n"
	if got, n := headLines(s, 2, 100); got != "a\nbb\n" || n != 2 {
		t.Errorf("head by lines: %q %d", got, n)
	}
	if got, n := headLines(s, 10, 6); got != "a\nbb\n" || n != 2 {
		t.Errorf("head by bytes: %q %d", got, n)
	}
	if got, n := tailLines(s, 2, 100); got != "ccc\ndddd\n" || n != 2 {
		t.Errorf("tail by lines: %q %d", got, n)
	}
	if got, n := tailLines(s, 10, 9); got != "ccc\ndddd\n" || n != 2 {
		t.Errorf("tail by bytes: %q %d", got, n)
	}
	if got, n := headLines("日本語", 10, 4); got != "日" || n != 1 {
		t.Errorf("head of one long line: %q %d", got, n)
	}
	if got, _ := tailLines("日本語", 10, 4); !utf8.ValidString(got) {
		t.Errorf("tail of one long line is invalid UTF-8: %q", got)
	}
}

func TestDocumentText(t *testing.T) {
	tests := map[string]string{
		"plain\ttext\n":                 "plain\ttext\n",
		"crlf\r\nline":                  "crlf\nline",
		"progress 10%\rprogress 100%\n": "progress 10%\nprogress 100%\n",
		"\x1b[1;31mred\x1b[0m":          "red",
		"\x1b]0;title\x07after":         "after",
		"nul\x00bell\x07":               "nulbell",
		"bad \xff\xfe utf8":             "bad \uFFFD\uFFFD utf8",
		"cut rune \xe6\x97":             "cut rune \uFFFD\uFFFD",
		"c1 \u0085 control":             "c1  control",
		"emoji 🎉 ok":                    "emoji 🎉 ok",
	}
	for in, want := range tests {
		if got := DocumentText(in); got != want {
			t.Errorf("DocumentText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOutputSinkShortOutputStaysInMemory(t *testing.T) {
	s := newOutputSink(Limits{}, t.TempDir(), "x")
	s.Write([]byte("hello\nworld\n\n"))
	got := s.Finish()
	if got.Text != "hello\nworld" || got.Truncated || got.FullPath != "" {
		t.Errorf("%+v", got)
	}
}

func TestOutputSinkManyWritesCountLines(t *testing.T) {
	s := newOutputSink(Limits{MaxLines: 3, MaxBytes: 1000}, t.TempDir(), "x")
	for _, w := range strings.SplitAfter("1\n2\n3\n4\n5", "\n") {
		s.Write([]byte(w))
	}
	got := s.Finish()
	want := "3\n4\n5\n\n[Showing lines 3-5 of 5. Full output: " + got.FullPath + "]"
	if got.Text != want {
		t.Errorf("%q\nwant %q", got.Text, want)
	}
	if s.LastLine() != "5" {
		t.Errorf("lastLine %q", s.LastLine())
	}
}

func TestIsPlainTextMatchesByteByByteCheck(t *testing.T) {
	naive := func(s string) bool {
		if !utf8.ValidString(s) {
			return false
		}
		for _, r := range s {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r < 0xa0) {
				return false
			}
		}
		return true
	}
	base := "plain text, line one\nline\ttwo with 日本 and é\n"
	for i := 0; i < len(base); i++ {
		for _, b := range []byte{0x00, 0x07, 0x1b, 0x7f, 0x80, 0xc2, 0xff, '\r', '\n', 'a'} {
			s := base[:i] + string([]byte{b}) + base[i:]
			if got, want := isPlainText(s), naive(s); got != want {
				t.Fatalf("isPlainText(%q) = %v, want %v", s, got, want)
			}
		}
	}
}

func BenchmarkDocumentText(b *testing.B) {
	text := strings.Repeat("some line of text, fifty bytes long, more or less\n", 200)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		DocumentText(text)
	}
}

package contextwin

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/google/go-cmp/cmp"
)

const estimateDoc = "@System:\nBe brief.\n\n" +
	"@You:\nRead @./notes.txt and @./photo.png please.\n\n" +
	"@Assistant:\nDone.\n\n" +
	"@You:\nNow look at @./more.txt too.\n"

func TestEstimate(t *testing.T) {
	doc := chatdoc.Parse(estimateDoc)
	assistant := strings.Index(estimateDoc, "@Assistant:")
	after := len(estimateDoc) - strings.Index(estimateDoc, "@You:\nNow")
	files := map[string]int{"notes.txt": 100, "photo.png": 1600, "more.txt": 7}
	withFiles := Estimator{FileTokens: func(ref *chatdoc.FileRef) int { return files[strings.TrimPrefix(ref.Path, "./")] }}
	tests := []struct {
		name string
		e    Estimator
		last *LastUsage
		want Size
	}{
		{"no count: the whole document at 3.5 bytes a token", Estimator{}, nil,
			Size{Tokens: (len(estimateDoc)*2 + 6) / 7, AddedBytes: len(estimateDoc)}},
		{"count plus the bytes after its message at 4 a token", Estimator{}, &LastUsage{InputTokens: 1000, At: assistant},
			Size{Tokens: 1000 + (after+3)/4, Counted: 1000, AddedBytes: after}},
		{"At anywhere inside the message", Estimator{}, &LastUsage{InputTokens: 1000, At: assistant + 13},
			Size{Tokens: 1000 + (after+3)/4, Counted: 1000, AddedBytes: after}},
		{"At past the end: as if never counted", Estimator{}, &LastUsage{InputTokens: 1000, At: len(estimateDoc) + 1},
			Size{Tokens: (len(estimateDoc)*2 + 6) / 7, AddedBytes: len(estimateDoc)}},
		{"At before the first marker: as if never counted", Estimator{}, &LastUsage{InputTokens: 1000, At: -1},
			Size{Tokens: (len(estimateDoc)*2 + 6) / 7, AddedBytes: len(estimateDoc)}},
		{"files after the count only", withFiles, &LastUsage{InputTokens: 1000, At: assistant},
			Size{Tokens: 1000 + (after+3)/4 + 7, Counted: 1000, AddedBytes: after, FileTokens: 7}},
		{"every file without a count", withFiles, nil,
			Size{Tokens: (len(estimateDoc)*2+6)/7 + 1707, AddedBytes: len(estimateDoc), FileTokens: 1707}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.e.Estimate(doc, tt.last)); diff != "" {
				t.Errorf("Estimate (-want +got):\n%s", diff)
			}
		})
	}
}

// An edited snapshot (shared parts, moved offsets) estimates as a fresh
// parse of its text does.
func TestEstimateAfterEditsMatchesFreshParse(t *testing.T) {
	text := estimateDoc + strings.Repeat("@Assistant:\nMore @./x.txt.\n\n@You:\nAgain.\n\n", 600)
	doc := chatdoc.Parse(text)
	at := strings.Index(text, "@Assistant:") + 3
	for i := range 20 {
		doc = doc.Replace(chatdoc.Span{Start: 20 + i, End: 20 + i}, "typed ")
		at += 6
	}
	e := Estimator{FileTokens: func(*chatdoc.FileRef) int { return 3 }}
	fresh := chatdoc.Parse(doc.Text())
	for _, last := range []*LastUsage{nil, {InputTokens: 50, At: at}} {
		if diff := cmp.Diff(e.Estimate(fresh, last), e.Estimate(doc, last)); diff != "" {
			t.Errorf("edited snapshot, last %+v (-fresh +edited):\n%s", last, diff)
		}
	}
}

func TestAttachmentTokens(t *testing.T) {
	tests := []struct {
		mime string
		size int64
		want int
	}{
		{"text/plain", 0, 0},
		{"text/plain", 1, 1},
		{"text/plain", 4001, 1001},
		{"image/png", 3 << 20, 1600},
		{"application/pdf", 400, 100},
	}
	for _, tt := range tests {
		if got := AttachmentTokens(tt.mime, tt.size); got != tt.want {
			t.Errorf("AttachmentTokens(%q, %d) = %d, want %d", tt.mime, tt.size, got, tt.want)
		}
	}
}

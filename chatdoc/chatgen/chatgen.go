// Package chatgen generates large, realistic .chat documents for benchmarks:
// prose, code fences, tool uses with JSON input and their results.
package chatgen

import (
	"fmt"
	"math/rand"
	"strings"
)

var words = strings.Fields(`the a config build test server request handler file line error value parse
returns function module package update retry cache index token message document result tool
quickly carefully because when after before with without into from under over between`)

var tools = []struct{ name, input string }{
	{"bash", `{"command":"go test ./pkg/%d/...","timeout":null,"label":"running tests"}`},
	{"read", `{"path":"src/file_%d.go","offset":null,"limit":200,"label":"reading source"}`},
	{"grep", `{"pattern":"TODO|FIXME","path":"pkg/%d","glob":"*.go","limit":null,"label":null}`},
	{"write", `{"path":"notes/%d.md","content":"# Notes\n\nSome text.\n","label":"saving notes"}`},
}

// shape is how long a turn's prose paragraph and each tool output are:
// min + rand(spread) sentences and lines.
type shape struct{ sentences, sentenceSpread, lines, lineSpread int }

var (
	roomy = shape{4, 4, 4, 8}
	dense = shape{2, 3, 2, 6}
)

// Generate returns a document of about targetBytes bytes (at least one
// turn), deterministic for a seed. A turn is You, Assistant (prose, a code
// sample, one or two tool uses) and the next You carries their results; about
// 680 bytes per message on average, so 10 MB is 15,352 messages with 11,506
// tool uses.
func Generate(targetBytes int, seed int64) string { return generate(targetBytes, seed, roomy) }

// GenerateDense is Generate with shorter prose and tool outputs: 10 MB is
// 21,704 messages with 16,340 tool uses, the shape of the conversation
// issue 17 measured (22,503 messages, ~15,000 tool uses). More, smaller
// messages cost the parser and the server more per byte.
func GenerateDense(targetBytes int, seed int64) string { return generate(targetBytes, seed, dense) }

func generate(targetBytes int, seed int64, sh shape) string {
	r := rand.New(rand.NewSource(seed))
	var b strings.Builder
	b.Grow(targetBytes + 4096)
	b.WriteString("@System:\nYou are a careful assistant.\n\n")
	pendingResults := ""
	for turn := 0; b.Len() < targetBytes || turn == 0; turn++ {
		b.WriteString("@You:\n")
		b.WriteString(pendingResults)
		b.WriteString(sentence(r, 8+r.Intn(20)) + "\n\n")
		b.WriteString("@Assistant:\n")
		b.WriteString(paragraph(r, sh))
		if r.Intn(3) == 0 {
			b.WriteString("```go\nfunc f" + fmt.Sprint(turn) + "() error {\n\treturn nil\n}\n```\n\n")
		}
		var results strings.Builder
		for i := range 1 + r.Intn(2) {
			tool := tools[r.Intn(len(tools))]
			id := fmt.Sprintf("toolu_%06d_%d", turn, i)
			fmt.Fprintf(&b, "**Tool Use:** `%s` (`%s`)\n\n```json\n"+tool.input+"\n```\n\n", tool.name, id, turn)
			fmt.Fprintf(&results, "\n**Tool Result:** `%s`\n\n```\n%s```\n", id, output(r, sh))
		}
		pendingResults = results.String() + "\n"
	}
	b.WriteString("@You:\n" + pendingResults)
	return b.String()
}

func sentence(r *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.Intn(len(words))]
	}
	return strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:] + "."
}

func paragraph(r *rand.Rand, sh shape) string {
	var b strings.Builder
	for range sh.sentences + r.Intn(sh.sentenceSpread) {
		b.WriteString(sentence(r, 6+r.Intn(14)) + " ")
	}
	return strings.TrimSpace(b.String()) + "\n\n"
}

func output(r *rand.Rand, sh shape) string {
	var b strings.Builder
	for i := range sh.lines + r.Intn(sh.lineSpread) {
		fmt.Fprintf(&b, "ok  \tgithub.com/example/pkg/%d\t0.%03ds  %s\n", i, r.Intn(999), words[r.Intn(len(words))])
	}
	return b.String()
}

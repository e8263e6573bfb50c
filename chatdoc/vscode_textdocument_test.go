package chatdoc

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// vscodePositions asks vscode-languageserver's text-document model — what
// VS Code and most Node-based clients count — for the position of each
// UTF-16 offset of text.
const vscodePositions = `
const {TextDocument} = require(process.argv[1]);
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const doc = TextDocument.create('file:///x.chat', 'chat', 1, input.text);
const out = input.offsets.map(o => doc.positionAt(o));
out.push({lineCount: doc.lineCount});
process.stdout.write(JSON.stringify(out));
`

// Positions chatls sends agree with the ones the client counts, also for
// lone carriage returns (a line break under LSP) and mixed line endings.
func TestPositionsAgreeWithVSCodeTextDocument(t *testing.T) {
	module, _ := filepath.Abs(filepath.Join("..", "clients", "vscode", "node_modules", "vscode-languageserver-textdocument"))
	node, err := exec.LookPath("node")
	if _, statErr := os.Stat(module); err != nil || statErr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and %s are needed (bash clients/install-deps.sh)", module)
		}
		t.Skip("needs node and clients/vscode/node_modules (bash clients/install-deps.sh)")
	}
	for _, text := range []string{
		"@You:\na\rb\r\nc\nd\r",
		"\r\r\n\n\r",
		"x\r😀y\r\ré\n",
		"@Assistant:\n**Tool Use:** `read` (`t`)\n\n```json\r{\"path\":\"a\"}\r```\r\n",
	} {
		var offsets []int // UTF-16 offsets, one per rune boundary
		var bytesAt []int
		u := 0
		for i := 0; i <= len(text); {
			offsets = append(offsets, u)
			bytesAt = append(bytesAt, i)
			if i == len(text) {
				break
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			u += len(utf16.Encode([]rune{r}))
			i += size
		}
		in, _ := json.Marshal(map[string]any{"text": text, "offsets": offsets})
		cmd := exec.Command(node, "-e", vscodePositions, module)
		stdin, _ := cmd.StdinPipe()
		go func() { stdin.Write(in); stdin.Close() }()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v", err)
		}
		var got []struct {
			Line, Character, LineCount int
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		doc := Parse(text)
		if want := got[len(got)-1].LineCount; doc.Lines.LineCount() != want {
			t.Errorf("%q: %d lines, the client counts %d", text, doc.Lines.LineCount(), want)
		}
		for k, off := range bytesAt {
			p := doc.Lines.Position(off, UTF16)
			if p.Line != got[k].Line || p.Character != got[k].Character {
				t.Errorf("%q byte %d: chatls says %d:%d, the client %d:%d", text, off, p.Line, p.Character, got[k].Line, got[k].Character)
			}
			if back := doc.Lines.Offset(p, UTF16); back != off && !(off > 0 && text[off-1] == '\r' && off < len(text) && text[off] == '\n') {
				t.Errorf("%q byte %d: Offset(Position) = %d", text, off, back)
			}
		}
	}
}

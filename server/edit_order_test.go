package server

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/server/lspext"
)

// Edits reach the client in the order the server made them. A silent
// client (Vim's ALE) is sent each edit right after the one before, built on
// its result: an edit overtaking the one before lands in the wrong place
// (ALE put the second piece of an answer on a line of its own).
func TestEditsReachASilentClientInOrder(t *testing.T) {
	p := startInProcessWith(t, lspclient.Options{SilentApply: true}, "")
	uri := p.open("order.chat", "")
	const n = 200
	var want strings.Builder
	for i := range n {
		// Edit i writes line i at the start of the line after the i lines
		// before it: only the edits before it make that place exist.
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		at := protocol.Position{Line: uint32(i), Character: 0}
		edit := lspext.WorkspaceEdit{Changes: map[string][]lspext.TextEdit{uri: {{Range: protocol.Range{Start: at, End: at}, NewText: line}}}}
		p.srv.applyEdit(lspext.ApplyWorkspaceEditParams{Edit: edit})
	}
	err := p.c.WaitFor(30*time.Second, "every line in order", func(st *lspclient.State) bool { return st.Text(uri) == want.String() })
	if err != nil {
		t.Fatalf("%v\n--- client's text:\n%s", err, p.c.Doc(uri).Text)
	}
}

package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/internal/fileuri"
)

// testSession is a session over a fake editor in a workspace of its own,
// with no JSON-RPC between them.
type testSession struct {
	t  *testing.T
	s  *Session
	ed *fakeEditor
	ws string
}

// newTestSession starts a session whose editor settings are editorSettings
// (nil: none) and whose user config file holds userConfig.
func newTestSession(t *testing.T, editorSettings any, userConfig string) *testSession {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(base, "config.toml")
	if err := os.WriteFile(cfg, []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := newFakeEditor()
	s := New(Options{StateDir: filepath.Join(base, "state"), UserConfigPath: cfg, NoCustomTools: true}, ed)
	ed.s = s
	s.Start([]string{ws}, chatdoc.UTF16, editorSettings)
	t.Cleanup(s.Close)
	return &testSession{t: t, s: s, ed: ed, ws: ws}
}

// open writes text to name in the workspace and opens it.
func (ts *testSession) open(name, text string) (*Doc, string) {
	ts.t.Helper()
	path := filepath.Join(ts.ws, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		ts.t.Fatal(err)
	}
	uri := fileuri.FromPath(path)
	ts.ed.mu.Lock()
	ts.ed.open(uri, chatdoc.Parse(text))
	ts.ed.mu.Unlock()
	return ts.s.Open(uri, text, 1), uri
}

// pendingBash is one bash call answered by a pending placeholder.
func pendingBash(id, command string) string {
	q, _ := json.Marshal(command)
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`" + id + "`)\n\n```json\n" +
		`{"command":` + string(q) + `,"timeout":null}` + "\n```\n\n@You:\n\n**Tool Result:** `" + id + "`\n\n```flemma:tool status=pending\n```\n"
}

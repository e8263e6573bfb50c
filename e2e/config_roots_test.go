package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

// startRoots starts a server with one workspace folder per entry of
// workspaces (folder name → its .chatls.toml, "" for none) and the user
// config userText. It returns one session per folder, in order, sharing
// the server: each one's open writes into its own folder.
func startRoots(t *testing.T, userText string, names []string, workspaces map[string]string) []*session {
	t.Helper()
	base := t.TempDir()
	cfg := filepath.Join(base, "config")
	if userText != "" {
		testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), userText)
	}
	var folders []any
	for _, name := range names {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if text := workspaces[name]; text != "" {
			testfs.Write(t, filepath.Join(dir, ".chatls.toml"), text)
		}
		folders = append(folders, map[string]any{"uri": lspclient.PathURI(dir), "name": name})
	}
	state := filepath.Join(base, "state")
	env := append(os.Environ(), "XDG_STATE_HOME="+state, "XDG_CONFIG_HOME="+cfg, "TMPDIR="+base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	c, err := lspclient.Start(ctx, binary, []string{"--log-level", "debug"}, env, lspclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Shutdown(sctx)
		if t.Failed() {
			t.Logf("server stderr (tail):\n%s", c.Stderr())
		}
	})
	// lspclient's Initialize names one folder; the capabilities are its own.
	params := map[string]any{
		"processId": nil,
		"capabilities": map[string]any{
			"general":   map[string]any{"positionEncodings": []string{"utf-16"}},
			"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}, "inlayHint": map[string]any{"refreshSupport": true}},
			"window":    map[string]any{"workDoneProgress": true},
		},
		"workspaceFolders": folders,
	}
	var result map[string]any
	if err := c.Call(ctx, "initialize", params, &result); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	var out []*session
	for _, name := range names {
		out = append(out, &session{t: t, c: c, ws: filepath.Join(base, name), state: state, cfg: cfg, ctx: ctx})
	}
	return out
}

// Two workspace folders whose trusted .chatls.toml differ: each document
// follows its own folder's settings — placeholder style, and the sandbox
// (on with bubblewrap missing in one folder, so bash asks only there).
func TestEachDocumentFollowsItsWorkspaceSettings(t *testing.T) {
	// Every folder is trusted ("/" covers the test's temporary folders).
	user := "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\n[trust]\nworkspaces = [\"/\"]\n"
	roots := startRoots(t, user, []string{"a", "b"}, map[string]string{
		"a": "placeholderStyle = \"suffix\"\n",
		"b": "[sandbox]\nenabled = true\nbwrap = \"/nonexistent/bwrap-folder-b\"\n",
	})
	a, b := roots[0], roots[1]
	docA := a.open("a.chat", twoBashDoc("echo from-a", "touch pending-a"))
	docB := b.open("b.chat", twoBashDoc("echo from-b", "touch pending-b"))
	a.advance(docA)
	b.advance(docB)

	// Folder a: suffix placeholders, no sandbox: the rule runs echo.
	a.waitText(docA, "**Tool Result:** `b2` (pending)\n\n```\n```", "**Tool Result:** `b1`\n\n```\nfrom-a\n```")
	// Folder b: fence placeholders; bubblewrap is missing, so echo asks.
	b.waitText(docB, "**Tool Result:** `b1`\n\n```flemma:tool status=pending\n```", "**Tool Result:** `b2`\n\n```flemma:tool status=pending\n```")
	if d, trace := b.explain(docB, "b1"); d != "require_approval" || !strings.Contains(trace, "bubblewrap cannot run") {
		t.Errorf("folder b enables the sandbox without bubblewrap: bash must ask, got %s\n%s", d, trace)
	}
	if d, trace := a.explain(docA, "b2"); d != "require_approval" || strings.Contains(trace, "bubblewrap cannot run") {
		t.Errorf("folder a has no sandbox: its trace must not mention bubblewrap, got %s\n%s", d, trace)
	}
}

package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
	"github.com/chatls/chatls/internal/testfs"
)

// web_fetch refuses loopback addresses until tools.web_fetch.allowHosts
// names them; the setting applies when it changes, without a restart.
func TestWebFetchAllowHostsFollowsSettings(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello from loopback"))
	}))
	defer srv.Close()
	input := `{"url":"` + srv.URL + `/","maxBytes":null}`
	doc := "@You:\ngo\n\n@Assistant:\n" +
		"**Tool Use:** `web_fetch` (`toolu_w1`)\n\n```json\n" + input + "\n```\n\n" +
		"**Tool Use:** `web_fetch` (`toolu_w2`)\n\n```json\n" + input + "\n```\n\n" +
		"@You:\n\n**Tool Result:** `toolu_w1`\n\n```flemma:tool status=pending\n```\n\n" +
		"**Tool Result:** `toolu_w2`\n\n```flemma:tool status=pending\n```\n"
	s := start(t, sessionOptions{})
	uri := s.open("fetch.chat", doc)
	s.settle(uri)
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_w1` (error)", "refusing to connect to 127.0.0.1", "tools.web_fetch.allowHosts")

	s.changeConfig(map[string]any{"tools": map[string]any{
		"autoApprove": []string{"$default", "web_fetch"}, // only to see when the settings apply
		"web_fetch":   map[string]any{"allowHosts": []string{"127.0.0.1"}},
	}})
	s.waitDecision(uri, "toolu_w2", "approve")
	if err := s.c.Replace(s.ctx, uri, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_w2`\n\n```\nhello from loopback\n```")
}

// Turning the sandbox on later re-probes bubblewrap: a missing one is
// reported once per distinct failure and bash calls ask.
func TestSandboxReprobedWhenSettingsChange(t *testing.T) {
	rules := []string{"$default", "bash(echo *)"}
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"tools": map[string]any{"autoApprove": rules}}}})
	uri := s.open("probe.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	if d, _ := s.explain(uri, "toolu_b"); d != "approve" {
		t.Fatalf("echo is approved while the sandbox is off, got %s", d)
	}
	s.changeConfig(map[string]any{"tools": map[string]any{"autoApprove": rules}, "sandbox": map[string]any{"enabled": true, "bwrap": "/nonexistent/bwrap-a"}})
	s.waitMessage(1, "bubblewrap", "/nonexistent/bwrap-a")
	if d, trace := s.explain(uri, "toolu_b"); d != "require_approval" || !strings.Contains(trace, "bubblewrap cannot run") {
		t.Errorf("with the sandbox on and bubblewrap missing, bash must ask; got %s\n%s", d, trace)
	}
	// Another change with the same failure says nothing new.
	s.changeConfig(map[string]any{"tools": map[string]any{"autoApprove": rules, "deny": []string{"read(notes.txt)"}},
		"sandbox": map[string]any{"enabled": true, "bwrap": "/nonexistent/bwrap-a"}})
	s.waitDecision(uri, "toolu_r", "deny")
	// A different failure is reported.
	s.changeConfig(map[string]any{"tools": map[string]any{"autoApprove": rules}, "sandbox": map[string]any{"enabled": true, "bwrap": "/nonexistent/bwrap-b"}})
	s.waitMessage(1, "bubblewrap", "/nonexistent/bwrap-b")
	var reports []string
	for _, m := range s.messages("/nonexistent/bwrap-a") {
		if strings.Contains(m, "bash calls now need a rule or your approval") {
			reports = append(reports, m)
		}
	}
	if len(reports) != 1 {
		t.Errorf("the same failure must be reported once, got %q", reports)
	}
	// Off again: bash is approved again.
	s.changeConfig(map[string]any{"tools": map[string]any{"autoApprove": rules}})
	s.waitDecision(uri, "toolu_b", "approve")
}

// A .chatls.toml that turns the sandbox on when it is reloaded re-probes too.
func TestSandboxReprobedOnWorkspaceReload(t *testing.T) {
	s := startWithUserConfig(t, sessionOptions{}, "[tools]\nautoApprove = [\"$default\", \"bash(echo *)\"]\n[sandbox]\nbwrap = \"/nonexistent/bwrap-c\"\n", "")
	uri := s.open("reload.chat", twoCalls("echo hi", "notes.txt"))
	// sandbox.enabled = "auto" by default: the probe fails at once, and
	// the rules still apply.
	s.waitMessage(1, "bubblewrap", "/nonexistent/bwrap-c")
	if d, _ := s.explain(uri, "toolu_b"); d != "approve" {
		t.Fatalf("echo is approved by its rule where the sandbox is unavailable, got %s", d)
	}
	// sandbox.enabled = true makes the failure an error: bash asks.
	testfs.Write(t, filepath.Join(s.ws, ".chatls.toml"), "[sandbox]\nenabled = true\n")
	s.waitDecision(uri, "toolu_b", "require_approval")
	var said []string
	for _, m := range s.messages("/nonexistent/bwrap-c") {
		if strings.Contains(m, "bash calls now need a rule or your approval") {
			said = append(said, m) // not chatls.explain's trace, which names it too
		}
	}
	if len(said) != 1 {
		t.Errorf("the same failure must be said once, got %q", said)
	}
}

// pidPlugin is a plugin script that appends its PID to pids and declares
// one tool.
func pidPlugin(t *testing.T, dir, tool string) (path, pids string) {
	path, pids = filepath.Join(dir, tool+"-plugin"), filepath.Join(dir, tool+"-pids")
	writeExecutable(t, path, "#!/bin/bash\necho $$ >> "+pids+"\nread -r line\n"+
		`echo '{"type":"init","tools":[{"name":"`+tool+`","description":"test tool","parameters":{"type":"object","properties":{},"additionalProperties":false}}]}'`+
		"\nexec cat >/dev/null\n")
	return path, pids
}

func readPIDs(path string) []string {
	data, _ := os.ReadFile(path)
	return strings.Fields(string(data))
}

func processGone(pid string) bool {
	data, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	// A zombie is gone too: it runs nothing.
	f := strings.Fields(string(data))
	return len(f) > 2 && f[2] == "Z"
}

// Plugins follow the editor settings: one added through
// didChangeConfiguration starts and is listed, a changed one restarts, an
// unrelated change keeps it running, a removed one stops.
func TestPluginSourcesFollowEditorSettings(t *testing.T) {
	dir := t.TempDir()
	plugin, pids := pidPlugin(t, dir, "pidtool")
	s := start(t, sessionOptions{})
	uri := s.open("sources.chat", twoCalls("echo hi", "notes.txt"))
	s.settle(uri)
	if _, ok := s.listTools(uri)["pidtool"]; ok {
		t.Fatal("pidtool listed before it was configured")
	}
	withPlugin := func(args []string, deny []string) map[string]any {
		return map[string]any{"tools": map[string]any{"deny": deny, "plugins": []any{map[string]any{"name": "pid", "path": plugin, "args": args}}}}
	}
	s.changeConfig(withPlugin(nil, nil))
	s.eventually("pidtool listed", func() bool { return s.listTools(uri)["pidtool"] == "plugin:pid" })
	first := readPIDs(pids)
	if len(first) != 1 {
		t.Fatalf("the plugin must have started once, pids %v", first)
	}

	// Unrelated change: the plugin keeps running.
	s.changeConfig(withPlugin(nil, []string{"read(notes.txt)"}))
	s.waitDecision(uri, "toolu_r", "deny")
	if got := readPIDs(pids); len(got) != 1 || processGone(first[0]) {
		t.Errorf("an unrelated change must not restart the plugin: pids %v", got)
	}

	// Changed arguments: restarted.
	s.changeConfig(withPlugin([]string{"v2"}, []string{"read(notes.txt)"}))
	s.eventually("the plugin restarted", func() bool { return len(readPIDs(pids)) == 2 && processGone(first[0]) })
	s.eventually("pidtool listed after the restart", func() bool { return s.listTools(uri)["pidtool"] == "plugin:pid" })

	// Removed: stopped and no longer listed.
	s.changeConfig(map[string]any{"tools": map[string]any{}})
	second := readPIDs(pids)[1]
	s.eventually("the plugin stopped", func() bool { return processGone(second) })
	s.eventually("pidtool unlisted", func() bool { _, ok := s.listTools(uri)["pidtool"]; return !ok })
}

// A plugin added to the user config file while chatls runs starts.
func TestPluginAddedToUserConfigFileStarts(t *testing.T) {
	plugin, _ := pidPlugin(t, t.TempDir(), "filetool")
	s := startWithUserConfig(t, sessionOptions{}, "# nothing yet\n", "")
	if _, ok := s.listTools("")["filetool"]; ok {
		t.Fatal("filetool listed before it was configured")
	}
	testfs.Write(t, s.userConfig, "[[tools.plugins]]\nname = \"file\"\npath = \""+plugin+"\"\n")
	s.eventually("filetool listed", func() bool { return s.listTools("")["filetool"] == "plugin:file" })
}

// chatls.listTools waits for loading sources (bounded by
// tools.defaultTimeout) and, with a uri, lists the tools of that document's
// workspace: a trusted workspace's plugin is not offered to other documents.
func TestListToolsWaitsAndFollowsTheDocument(t *testing.T) {
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(dir, "slow-plugin")
	writeExecutable(t, slow, "#!/bin/bash\nread -r line\nread -r _ < "+release+"\n"+
		`echo '{"type":"init","tools":[{"name":"slowtool","description":"answers slowly","parameters":{"type":"object","properties":{},"additionalProperties":false}}]}'`+
		"\nexec cat >/dev/null\n")
	ws := filepath.Join(dir, "ws")
	wsPlugin, _ := pidPlugin(t, ws, "wstool")
	user := "[trust]\nworkspaces = [\"" + ws + "\"]\n\n[[tools.plugins]]\nname = \"slow\"\npath = \"" + slow + "\"\n"
	s := startWithUserConfig(t, sessionOptions{ws: ws}, user, "[[tools.plugins]]\nname = \"ws\"\npath = \""+wsPlugin+"\"\n")
	inside := s.open("inside.chat", twoCalls("echo hi", "notes.txt"))

	wait, err := s.c.Send(s.ctx, 777, "workspace/executeCommand", map[string]any{"command": "chatls.listTools", "arguments": []any{map[string]any{"uri": inside}}})
	if err != nil {
		t.Fatal(err)
	}
	s.settle(inside) // the server has taken the listTools request
	if err := os.WriteFile(release, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var listed []map[string]any
	if err := wait(&listed); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range listed {
		names[tool["name"].(string)] = true
	}
	if !names["slowtool"] || !names["wstool"] || !names["bash"] {
		t.Errorf("listTools must wait for the sources and list them all, got %v", names)
	}

	outside := lspclient.PathURI(filepath.Join(t.TempDir(), "outside.chat"))
	got := s.listTools(outside)
	if _, ok := got["wstool"]; ok {
		t.Error("a document outside the workspace must not be offered its .chatls.toml plugin")
	}
	if got["slowtool"] != "plugin:slow" || got["bash"] != "builtin" {
		t.Errorf("user and built-in tools are for every document, got %v", got)
	}
}

// A sandbox turned on again is probed afresh: bubblewrap installed (here: a
// link at the configured path) while the sandbox was off is seen, so bash is
// approved by its rule again and runs inside the sandbox; nothing new is
// reported.
func TestSandboxReprobedWhenTurnedOnAgain(t *testing.T) {
	if _, err := os.Stat("/usr/bin/bwrap"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("bubblewrap must be installed in CI")
		}
		t.Skip("bubblewrap not installed")
	}
	bwrap := filepath.Join(t.TempDir(), "bin", "bwrap") // missing at first
	rules := []string{"$default", "bash(echo *)"}
	settings := func(enabled bool, deny ...string) map[string]any {
		return map[string]any{"tools": map[string]any{"autoApprove": rules, "deny": deny},
			"sandbox": map[string]any{"enabled": enabled, "bwrap": bwrap}}
	}
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: settings(true)}})
	uri := s.open("probe.chat", twoCalls("echo hi", "notes.txt"))
	s.waitMessage(1, "bubblewrap", bwrap)
	if d, _ := s.explain(uri, "toolu_b"); d != "require_approval" {
		t.Fatalf("bubblewrap is missing: bash must ask, got %s", d)
	}

	s.changeConfig(settings(false, "read(notes.txt)"))
	s.waitDecision(uri, "toolu_r", "deny")
	if err := os.MkdirAll(filepath.Dir(bwrap), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/usr/bin/bwrap", bwrap); err != nil {
		t.Fatal(err)
	}
	s.changeConfig(settings(true))
	s.waitDecision(uri, "toolu_r", "approve") // the new settings apply
	s.waitDecision(uri, "toolu_b", "approve") // and bubblewrap was probed again

	outside := filepath.Join(os.Getenv("HOME"), "chatls-reprobe-escape-probe")
	os.Remove(outside)
	doc := s.open("sandboxed.chat", bashDoc("echo x > "+outside+"; echo done"))
	s.settle(doc)
	if err := s.c.Replace(s.ctx, doc, "status=pending", "status=approved"); err != nil {
		t.Fatal(err)
	}
	s.waitText(doc, "Read-only file system\ndone\n\n[sandbox: write to "+outside+" refused]\n```")
	if exists(outside) {
		os.Remove(outside)
		t.Fatal("bash ran outside the sandbox")
	}
	if reports := s.messages("bash calls now need a rule or your approval"); len(reports) != 1 {
		t.Errorf("want the one report of the missing bubblewrap, got %q", reports)
	}
}

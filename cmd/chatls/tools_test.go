package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/procsup/proctest"
	"github.com/chatls/chatls/tools/builtin"
	"github.com/chatls/chatls/tools/custom"
	"github.com/chatls/chatls/tools/lsp"
)

// binDir holds executables some tests build (on first use).
var binDir string

// TestMain keeps the package's tests away from the user's real config: a
// configured plugin there would start during `check` tests.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "chatls-cmd-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = filepath.Join(dir, "bin")
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "no-config"))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce                sync.Once
	buildErr                 error
	wordcountBin, mcpTestBin string
)

// testBinaries builds the example plugin and the stdio MCP test server.
func testBinaries(t *testing.T) {
	t.Helper()
	buildOnce.Do(func() {
		wordcountBin, mcpTestBin = filepath.Join(binDir, "wordcount-plugin"), filepath.Join(binDir, "stdioserver")
		for bin, pkg := range map[string]string{
			wordcountBin: "github.com/chatls/chatls/examples/wordcount-plugin",
			mcpTestBin:   "github.com/chatls/chatls/tools/mcp/testdata/stdioserver",
		} {
			if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// userConfig writes a config.toml for the test and points XDG_CONFIG_HOME at it.
func userConfig(t *testing.T, toml string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "chatls", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	return path
}

func customConfigTOML() string {
	return fmt.Sprintf(`[[tools.plugins]]
name = "wordcount"
path = %q

[tools.mcpServers.local]
command = %q
`, wordcountBin, mcpTestBin)
}

func runToolsOK(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := runTools(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	return out.String(), errOut.String()
}

func TestRunToolsListsBuiltins(t *testing.T) {
	t.Chdir(t.TempDir())
	out, _ := runToolsOK(t)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1+builtinCount() || strings.Join(strings.Fields(lines[0]), " ") != "NAME SOURCE PARAMETERS DESCRIPTION" || !strings.HasPrefix(lines[1], "bash ") {
		t.Errorf("output:\n%s", out)
	}
	rows := map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		rows[f[0]] = strings.Join(f[1:], " ")
	}
	for name, want := range map[string]string{
		"read":       "builtin path, offset?, limit?, label? ",
		"bash":       "builtin command, timeout?, label? ",
		"calculator": "builtin expression, label? ",
	} {
		if !strings.HasPrefix(rows[name], want) {
			t.Errorf("%s row = %q, want prefix %q", name, rows[name], want)
		}
	}
}

// builtinCount is how many built-in tools chatls has.
func builtinCount() int { return len(lsp.WithBuiltins(builtin.Options{}, lsp.NewPool())) }

func TestRunToolsJSONHasSchemas(t *testing.T) {
	t.Chdir(t.TempDir())
	out, _ := runToolsOK(t, "--json")
	var got []toolJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != builtinCount() || got[0].Name != "bash" || got[0].Source != "builtin" || !json.Valid(got[0].Schema) {
		t.Errorf("got %+v", got[0])
	}
}

// The user config's plugins and MCP servers are listed with their schemas,
// and nothing started for the listing keeps running.
func TestRunToolsListsConfiguredSources(t *testing.T) {
	proctest.Skip(t)
	testBinaries(t)
	t.Chdir(t.TempDir())
	userConfig(t, customConfigTOML())
	out, errOut := runToolsOK(t)
	if errOut != "" {
		t.Errorf("stderr: %s", errOut)
	}
	for _, want := range []string{
		"wordcount   plugin:wordcount  text?, path?         Count lines, words and characters of a text or a file.",
		"local.echo  mcp:local         text                 Echo text",
		"local.crash mcp:local",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if n, want := len(strings.Split(strings.TrimSpace(out), "\n")), 1+builtinCount()+3; n != want {
		t.Errorf("%d lines, want %d (header, the built-ins, wordcount, 2 MCP tools):\n%s", n, want, out)
	}
	proctest.AwaitGone(t, 5*time.Second, append(proctest.PidsOf(wordcountBin), proctest.PidsOf(mcpTestBin)...)...)

	out, _ = runToolsOK(t, "--json")
	var got []toolJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	byName := map[string]toolJSON{}
	for _, tj := range got {
		byName[tj.Name] = tj
	}
	wc, echo := byName["wordcount"], byName["local.echo"]
	var schema bytes.Buffer
	json.Compact(&schema, wc.Schema)
	if wc.Source != "plugin:wordcount" || !strings.Contains(schema.String(), `"additionalProperties":false`) || wc.PreviewTemplate == "" {
		t.Errorf("wordcount = %+v", wc)
	}
	if echo.Source != "mcp:local" || echo.Annotations["readOnlyHint"] != true || !strings.Contains(string(echo.Schema), `"text"`) {
		t.Errorf("local.echo = %+v", echo)
	}
}

// --config names the user file, as for the server and `policy check`.
func TestRunToolsConfigFlag(t *testing.T) {
	testBinaries(t)
	t.Chdir(t.TempDir())
	path := filepath.Join(t.TempDir(), "elsewhere.toml")
	if err := os.WriteFile(path, []byte(fmt.Sprintf("[[tools.plugins]]\nname = \"wc\"\npath = %q\n", wordcountBin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := runToolsOK(t, "--config", path)
	if !strings.Contains(out, "plugin:wc") {
		t.Errorf("--config ignored:\n%s", out)
	}
	var o, e bytes.Buffer
	// A --config that names no file is a typo, not empty settings.
	if code := runTools([]string{"--config", filepath.Join(t.TempDir(), "broken.toml")}, &o, &e); code != 2 || !strings.Contains(e.String(), "broken.toml: stat") {
		t.Errorf("a missing --config file must be refused; exit %d: %s", code, e.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(bad, []byte("[tools\n"), 0o644)
	if code := runTools([]string{"--config", bad}, &o, &e); code != 1 || !strings.Contains(e.String(), "chatls tools: ") {
		t.Errorf("broken config: exit %d, stderr %q", code, e.String())
	}
}

// .chatls.toml starts programs only in a trusted workspace.
func TestRunToolsWorkspaceTrust(t *testing.T) {
	testBinaries(t)
	ws := t.TempDir()
	t.Chdir(ws)
	if err := os.WriteFile(filepath.Join(ws, ".chatls.toml"), []byte(fmt.Sprintf("[[tools.plugins]]\nname = \"wsplugin\"\npath = %q\n", wordcountBin)), 0o644); err != nil {
		t.Fatal(err)
	}
	userConfig(t, "")
	out, errOut := runToolsOK(t)
	if strings.Contains(out, "plugin:wsplugin") {
		t.Errorf("an untrusted workspace's plugin was started:\n%s", out)
	}
	if !strings.Contains(errOut, "note: "+filepath.Join(ws, ".chatls.toml")+" declares 1 plugin(s) or MCP server(s); they are not started because") {
		t.Errorf("stderr: %q", errOut)
	}
	userConfig(t, fmt.Sprintf("[trust]\nworkspaces = [%q]\n", ws))
	out, errOut = runToolsOK(t)
	if !strings.Contains(out, "wordcount") || !strings.Contains(out, "plugin:wsplugin") || errOut != "" {
		t.Errorf("trusted workspace plugin missing:\n%s\nstderr: %s", out, errOut)
	}
}

func TestRunToolsWarnsAboutFailingSources(t *testing.T) {
	t.Chdir(t.TempDir())
	userConfig(t, "[[tools.plugins]]\nname = \"broken\"\npath = \"/nonexistent/plugin\"\n")
	out, errOut := runToolsOK(t)
	want := "warning: plugin:broken: cannot start plugin broken (/nonexistent/plugin): fork/exec /nonexistent/plugin: no such file or directory\n"
	if errOut != want {
		t.Errorf("stderr: %q\nwant    %q", errOut, want)
	}
	if !strings.Contains(out, "read ") {
		t.Errorf("built-ins missing:\n%s", out)
	}
	var o, e bytes.Buffer
	if code := runTools([]string{"extra"}, &o, &e); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}

func TestParamSummary(t *testing.T) {
	for schema, want := range map[string]string{
		`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":["integer","null"]},"offset":{"type":["integer","null"]}},"required":["path","offset","limit"],"additionalProperties":false}`: "path, offset?, limit?",
		`{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}},"required":["a"]}`:                                                                                                        "a, b?",
		`{"type":"object","properties":{"label":{"type":["string","null"]},"x":{"anyOf":[{"type":"string"},{"type":"null"}]},"y":{"type":"number"}},"required":["label","x","y"]}`:                             "y, x?, label?",
		`{"type":"object"}`: "any",
		`{"type":"object","properties":{},"additionalProperties":false}`: "-",
		`{"type":"object","properties":{}}`:                              "-",
		`not json`:                                                       "?",
		``:                                                               "?",
		`{"properties":{"aaaaaaaaaa":{},"bbbbbbbbbb":{},"cccccccccc":{},"dddddddddd":{},"eeeeeeeeee":{},"ffffffffff":{}},"required":["aaaaaaaaaa","bbbbbbbbbb","cccccccccc","dddddddddd","eeeeeeeeee","ffffffffff"]}`: "aaaaaaaaaa, bbbbbbbbbb, cccccccccc, dddddddddd, eeeeeeeeee,…",
	} {
		if got := paramSummary(json.RawMessage(schema)); got != want {
			t.Errorf("paramSummary(%s) = %q, want %q", schema, got, want)
		}
	}
}

func callDoc(name, input string) *chatdoc.Document {
	return chatdoc.Parse("@You:\ngo\n\n@Assistant:\n**Tool Use:** `" + name + "` (`toolu_1`)\n\n```json\n" + input + "\n```\n")
}

func messages(diags []chatdoc.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Message)
	}
	return out
}

// `chatls check` knows configured plugin and MCP tools: it starts only the
// sources a document needs, once, validates against their schemas, and
// stops them at once.
func TestCheckUsesConfiguredTools(t *testing.T) {
	proctest.Skip(t)
	testBinaries(t)
	var stderr bytes.Buffer
	c := newCheckToolSet(custom.Config{
		Plugins:    []config.Plugin{{Name: "wordcount", Path: wordcountBin}},
		MCPServers: map[string]config.MCPServer{"local": {Command: mcpTestBin}},
		Timeout:    10 * time.Second,
	}, &stderr)

	if got := messages(c.diagnostics(callDoc("read", `{"path":"a.txt","offset":null,"limit":null}`))); got != nil {
		t.Errorf("built-in only: %q", got)
	}
	if len(c.tried) != 0 {
		t.Errorf("a document with built-ins only started %v", c.tried)
	}
	if got := messages(c.diagnostics(callDoc("wordcount", `{"text":"a b","path":null}`))); got != nil {
		t.Errorf("valid wordcount call: %q", got)
	}
	if !c.tried["plugin:wordcount"] || c.tried["mcp:local"] {
		t.Errorf("started %v; want only plugin:wordcount (no local.* tool in the document)", c.tried)
	}
	proctest.AwaitGone(t, 5*time.Second, proctest.PidsOf(wordcountBin)...)
	got := messages(c.diagnostics(callDoc("wordcount", `{"text":"a b","path":null,"extra":1}`)))
	if len(got) != 1 || !strings.HasPrefix(got[0], "Invalid input for `wordcount`") {
		t.Errorf("invalid wordcount call: %q", got)
	}
	if got := messages(c.diagnostics(callDoc("local.echo", `{"text":"hi"}`))); got != nil {
		t.Errorf("valid MCP call: %q", got)
	}
	// Flemma 0.11's name of the same tool is read, with the 0.12 form offered.
	if got := messages(c.diagnostics(callDoc("local:echo", `{"text":"hi"}`))); len(got) != 1 || got[0] != "Flemma 0.12 writes this tool `local.echo`" {
		t.Errorf("valid MCP call in the 0.11 form: %q", got)
	}
	if got := messages(c.diagnostics(callDoc("nosuch", `{}`))); len(got) != 1 || got[0] != "Unknown tool `nosuch`" {
		t.Errorf("unknown tool: %q", got)
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	proctest.AwaitGone(t, 5*time.Second, append(proctest.PidsOf(wordcountBin), proctest.PidsOf(mcpTestBin)...)...)
}

// A source that cannot load makes the unknown-tool warning "not verified",
// and the whole run through runCheck says so.
func TestCheckUnverifiedWhenASourceFails(t *testing.T) {
	var stderr bytes.Buffer
	c := newCheckToolSet(custom.Config{
		Plugins:    []config.Plugin{{Name: "broken", Path: "/nonexistent/plugin"}},
		MCPServers: map[string]config.MCPServer{"remote": {URL: "http://127.0.0.1:1/mcp"}},
		Timeout:    5 * time.Second,
	}, &stderr)
	old := checkTools
	checkTools = func() *checkToolSet { return c }
	t.Cleanup(func() { checkTools = old })

	dir := t.TempDir()
	file := filepath.Join(dir, "a.chat")
	text := "@You:\ngo\n\n@Assistant:\n**Tool Use:** `wordcount` (`toolu_1`)\n\n```json\n{}\n```\n\n" +
		"**Tool Use:** `other:thing` (`toolu_2`)\n\n```json\n{}\n```\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	runCheck([]string{file}, &out, &errOut)
	want := file + ":5:16: warning: Unknown tool `wordcount` (not verified: plugin:broken did not load)\n" +
		file + ":11:16: warning: Unknown tool `other:thing`: no MCP server `other` provides it (not verified: plugin:broken did not load)\n" +
		file + ":5:1: info: 2 tool calls have no result yet (the next step in an editor, or chatls send, takes it on)\n"
	if out.String() != want {
		t.Errorf("check output:\n%s\nwant:\n%s", out.String(), want)
	}
	if got := stderr.String(); got != "warning: tool source plugin:broken: cannot start plugin broken (/nonexistent/plugin): fork/exec /nonexistent/plugin: no such file or directory\n" {
		t.Errorf("stderr: %q", got)
	}
	if c.tried["mcp:remote"] {
		t.Error("the MCP server remote was contacted for tools it cannot provide")
	}
}

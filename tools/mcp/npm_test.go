package mcp

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"go.uber.org/zap/zaptest"
)

// The reference MCP server from npm, installed by .ci/run with
//
//	bash tools/mcp/install-test-server.sh   # npm ci --prefix tools/mcp/testdata/npm
//
// $CHATLS_MCP_EVERYTHING may name its dist/index.js instead. Without it the
// tests skip, unless $CHATLS_REQUIRE_NPM_MCP is set (CI), where they fail.
const everythingScript = "testdata/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

func everything(t testing.TB) (node, script string) {
	t.Helper()
	script = os.Getenv("CHATLS_MCP_EVERYTHING")
	if script == "" {
		script = everythingScript
	}
	script, _ = filepath.Abs(script)
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(script)
	if err == nil && statErr == nil {
		return node, script
	}
	missing := statErr
	if err != nil {
		missing = err
	}
	msg := fmt.Sprintf("the npm MCP server is not available (%v); run `bash tools/mcp/install-test-server.sh` or set CHATLS_MCP_EVERYTHING", missing)
	if os.Getenv("CHATLS_REQUIRE_NPM_MCP") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}

// checkEverything exercises the reference server's tools through chatls.
func checkEverything(t *testing.T, s *Source) {
	byName := load(t, s)
	for _, name := range []string{"everything.echo", "everything.get-sum", "everything.get-tiny-image", "everything.get-resource-reference"} {
		if byName[name] == nil {
			t.Fatalf("missing %s", name)
		}
	}
	def := byName["everything.echo"].Definition()
	if def.Source != "mcp:everything" || def.Annotations["readOnlyHint"] != true || def.Annotations["title"] != "Echo Tool" {
		t.Errorf("echo definition = %+v", def)
	}
	if !strings.Contains(string(def.Schema), `"message"`) {
		t.Errorf("echo schema = %s", def.Schema)
	}
	wantResult(t, run(t, byName["everything.echo"], map[string]any{"message": "hi"}), false, "Echo: hi")
	wantResult(t, run(t, byName["everything.get-sum"], map[string]any{"a": 2, "b": 3}), false, "The sum of 2 and 3 is 5.")

	img := run(t, byName["everything.get-tiny-image"], nil)
	if img.IsError || !strings.Contains(img.Text, "Here's the image you requested:\n[image: image/png, ") {
		t.Errorf("get-tiny-image = %+v", img)
	}
	ref := run(t, byName["everything.get-resource-reference"], map[string]any{"resourceType": "Text", "resourceId": 1})
	if ref.IsError || !strings.Contains(ref.Text, "[resource: demo://resource/dynamic/text/1]\nResource 1: ") {
		t.Errorf("get-resource-reference = %+v", ref)
	}
	bad := run(t, byName["everything.get-sum"], map[string]any{"a": "two"})
	if !bad.IsError {
		t.Errorf("invalid input to the real server = %+v, want an error result", bad)
	}
}

func TestNPMEverythingStdio(t *testing.T) {
	node, script := everything(t)
	s := NewSource("everything", config.MCPServer{
		Command:  node,
		Args:     []string{script, "stdio"},
		Previews: map[string]string{"echo": "{{.message}}"},
	}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	checkEverything(t, s)
	checkSchemaAndPreview(t, s)
}

// checkSchemaAndPreview runs the real server's (zod-generated) schemas
// through the registry's validation, and the configured preview template.
func checkSchemaAndPreview(t *testing.T, s *Source) {
	list := s.currentTools()
	reg := tools.NewRegistry(nil)
	reg.Replace(s.Name(), list)
	if errs := reg.Validate("everything.get-sum", map[string]any{"a": 2.0, "b": 3.0}); len(errs) != 0 {
		t.Errorf("valid input rejected: %v", errs)
	}
	if errs := reg.Validate("everything.get-sum", map[string]any{"a": "two"}); len(errs) == 0 {
		t.Error("invalid input accepted by the server's schema")
	}
	echo, _ := reg.Lookup("everything.echo")
	if got := tools.Preview(echo.Definition(), map[string]any{"message": "hi there"}, 80); got != "everything.echo: hi there" {
		t.Errorf("preview = %q", got)
	}
}

func TestNPMEverythingStreamableHTTP(t *testing.T) {
	node, script := everything(t)
	port := freePort(t)
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitForPort(t, port)

	s := NewSource("everything", config.MCPServer{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, zaptest.NewLogger(t))
	t.Cleanup(func() { s.Close() })
	checkEverything(t, s)
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitForPort(t testing.TB, port int) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			conn.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("server did not listen on port %d", port)
}

package e2e

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// runCLISend runs `chatls send FILE` in dir with the user config, as a
// user would in a terminal.
func runCLISend(t *testing.T, dir, userConfig string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config")
	testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), userConfig)
	cmd := exec.Command(binary, append([]string{"send"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	return runCommand(t, cmd)
}

// runCommand runs cmd to its end and returns its exit code and output; a
// command that cannot start fails the test.
func runCommand(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// chatls send: the whole chain from a terminal, the file written back;
// exit 2 with the waiting call named at the first pending; exit 3 when
// --max-turns stops it; exit 1 with the provider's error on stderr.
func TestCLISend(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "notes.txt"), "Buy milk.\n")
	file := filepath.Join(dir, "agent.chat")
	responses := `{"responses": [
		{"text": "Reading.", "toolUses": [{"name": "read", "input": {"path": "notes.txt", "offset": null, "limit": null}}]},
		{"text": "They say buy milk."}]}`
	testfs.Write(t, file, "@You:\nWhat do my notes say?\n")
	code, _, stderr := runCLISend(t, dir, scriptConfig(t, responses), "agent.chat")
	data, _ := os.ReadFile(file)
	if code != 0 || !strings.HasSuffix(string(data), "They say buy milk.\n\n@You:\n\n") || !strings.Contains(string(data), "Buy milk.") {
		t.Fatalf("exit %d, stderr %s\nfile:\n%s", code, stderr, data)
	}

	testfs.Write(t, file, "@You:\nclean up\n")
	pending := `{"responses": [{"text": "Cleaning.", "toolUses": [{"name": "bash", "input": {"command": "rm -rf build"}}]}]}`
	code, stdout, _ := runCLISend(t, dir, scriptConfig(t, pending), "agent.chat")
	if code != 2 || stdout != "pending: bash script_1_1 at agent.chat:14\n" {
		data, _ := os.ReadFile(file)
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, data)
	}

	testfs.Write(t, file, "@You:\ngo\n")
	loop := `{"responses": [{"text": "Again.", "toolUses": [{"name": "read", "input": {"path": "notes.txt", "offset": null, "limit": null}}]}]}`
	code, _, stderr = runCLISend(t, dir, scriptConfig(t, loop), "--max-turns", "2", "agent.chat")
	if code != 3 || !strings.Contains(stderr, "Autopilot stopped – exceeded 2 consecutive turns.") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
	}))
	defer srv.Close()
	testfs.Write(t, file, "@You:\nhi\n")
	code, _, stderr = runCLISend(t, dir, slowConfig(srv.URL+"/v1"), "agent.chat")
	data, _ = os.ReadFile(file)
	if code != 1 || !strings.Contains(stderr, "the key for slow was refused") || string(data) != "@You:\nhi\n" {
		t.Fatalf("exit %d, stderr %q, file %q", code, stderr, data)
	}
}

// chatls demo plays all three phases offline, with the scripted model.
func TestDemoPlaysAllThreePhases(t *testing.T) {
	cmd := exec.Command(binary, "demo")
	cmd.Env = append(os.Environ(), "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"== 7. chatls.advance again", "@Assistant:\nnotes.txt asks you to buy milk and ship chatls, and bash runs in the folder workspace.\n\n@You:\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

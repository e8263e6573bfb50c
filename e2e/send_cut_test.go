package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

const (
	cutMarker  = "<!-- flemma:aborted: Response interrupted: chatls stopped while it streamed. -->"
	cutMessage = "the last answer was cut off when chatls stopped while it streamed; it is marked as interrupted: write your question under the new @You: and send"
)

// An answer a crash cut off is recognised by the next step (SPEC §7): the
// server is killed while the answer streams; reopened in a new server the
// document is left as it is (opening only analyses), and chatls.advance
// closes it — the abort marker and @You:, with the message saying what to
// do; a question written there is then sent as usual.
func TestCutAnswerRecoveredAfterReopen(t *testing.T) {
	s, uri, release, _ := streamingHalfway(t, "cut.chat")
	defer close(release)
	if err := s.c.Process().Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = s.c.Process().Wait()
	cut := s.c.Doc(uri).Text
	// The stream keeps a line ending of its own after its text.
	if cut != "@You:\nhi\n\n@Assistant:\nHello world\n" {
		t.Fatalf("the killed answer: %q", cut)
	}

	r := start(t, sessionOptions{state: s.state, userConfig: scriptConfig(t, `{"responses": [{"text": "Hello again."}]}`)})
	uri = r.open("cut.chat", cut)
	r.settle(uri)
	if text := r.c.Doc(uri).Text; text != cut {
		t.Fatalf("opening edited the document:\n%s", text)
	}
	out := r.advance(uri)
	if out["message"] != cutMessage {
		t.Errorf("advance: %v", out)
	}
	want := cut + "\n" + cutMarker + "\n\n@You:\n\n"
	r.waitText(uri, "@You:\n\n")
	if text := r.c.Doc(uri).Text; text != want {
		t.Fatalf("document:\n%q\nwant:\n%q", text, want)
	}
	if err := appendText(r, uri, want, "go on"); err != nil {
		t.Fatal(err)
	}
	r.settle(uri)
	r.send(uri)
	r.waitText(uri, "Hello again.\n\n@You:\n\n")
	if text := r.c.Doc(uri).Text; text != want+"go on\n\n@Assistant:\nHello again.\n\n@You:\n\n" {
		t.Fatalf("after the next question:\n%q", text)
	}
}

// chatls.send on a cut answer closes it too, with its cut tool use
// aborted, and refuses the send saying what to do; an answer whose tool
// uses are complete is no cut answer: its calls get their placeholders.
func TestSendOnACutAnswer(t *testing.T) {
	s := start(t, sessionOptions{userConfig: scriptConfig(t, `{"responses": [{"text": "never"}]}`)})
	cut := "@You:\nlist\n\n@Assistant:\nListing.\n\n**Tool Use:** `bash` (`t_1`)\n\n```json\n{\"command\": \"l"
	uri := s.open("cut-send.chat", cut)
	_, err := s.command("chatls.send", map[string]any{"uri": uri})
	if err == nil || !strings.Contains(err.Error(), cutMessage) {
		t.Fatalf("chatls.send: %v", err)
	}
	want := cut + "\n```\n\n" + cutMarker + "\n\n@You:\n\n**Tool Result:** `t_1` (error)\n\n```\nResponse interrupted: chatls stopped while it streamed.\n```\n\n"
	s.waitText(uri, "(error)")
	if text := s.c.Doc(uri).Text; text != want {
		t.Fatalf("document:\n%q\nwant:\n%q", text, want)
	}

	pasted := "@You:\nlist\n\n@Assistant:\n**Tool Use:** `read` (`t_2`)\n\n```json\n{\"path\":\"notes.txt\",\"offset\":null,\"limit\":null}\n```\n"
	testfs.Write(t, filepath.Join(s.ws, "notes.txt"), "Buy milk.\n")
	uri = s.open("pasted.chat", pasted)
	s.advance(uri)
	s.waitText(uri, "Buy milk.")
	if text := s.c.Doc(uri).Text; strings.Contains(text, "flemma:aborted") || !strings.HasSuffix(text, "@You:\n\n**Tool Result:** `t_2`\n\n```\nBuy milk.\n```\n") {
		t.Fatalf("a complete answer was taken for a cut one:\n%q", text)
	}
}

// From a terminal: `chatls send FILE` killed while the answer streams
// leaves the file with a clean prefix of the answer; the next `chatls send
// FILE` closes it (exit 1 with the message saying what to do), and after a
// question the one after that sends. Bounded: a hang fails.
func TestCLISendRecoversACutAnswer(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	url, _ := slowChat(t, release)
	dir := t.TempDir()
	file := filepath.Join(dir, "cut.chat")
	testfs.Write(t, file, "@You:\nhi\n")
	cfg := filepath.Join(t.TempDir(), "config")
	testfs.Write(t, filepath.Join(cfg, "chatls", "config.toml"), slowConfig(url))
	cmd := exec.Command(binary, "send", "cut.chat")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(t.TempDir(), "state"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFileFor(t, file, "the streamed start", func(data []byte) bool { return strings.HasSuffix(string(data), "Hello world\n") })
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	cut := "@You:\nhi\n\n@Assistant:\nHello world\n"
	if data, _ := os.ReadFile(file); string(data) != cut {
		t.Fatalf("after the kill: %q", data)
	}

	script := scriptConfig(t, `{"responses": [{"text": "Hello again."}]}`)
	code, _, stderr := runCLISendWithin(t, 3*time.Minute, dir, script, "cut.chat")
	want := cut + "\n" + cutMarker + "\n\n@You:\n\n"
	data, _ := os.ReadFile(file)
	if code != 1 || !strings.Contains(stderr, cutMessage) || string(data) != want {
		t.Fatalf("exit %d, stderr %q\nfile %q\nwant %q", code, stderr, data, want)
	}
	testfs.Write(t, file, want+"go on\n")
	code, _, stderr = runCLISendWithin(t, 3*time.Minute, dir, script, "cut.chat")
	data, _ = os.ReadFile(file)
	if code != 0 || string(data) != want+"go on\n\n@Assistant:\nHello again.\n\n@You:\n\n" {
		t.Fatalf("exit %d, stderr %q\nfile %q", code, stderr, data)
	}
}

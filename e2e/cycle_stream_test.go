package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// rawServer is the chatls binary driven byte by byte, for tests of the
// JSON-RPC boundary itself.
type rawServer struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	msgs  chan map[string]any
	done  chan error
}

func startRaw(t *testing.T) *rawServer {
	t.Helper()
	cmd := exec.Command(binary)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawServer{t: t, cmd: cmd, stdin: stdin, msgs: make(chan map[string]any, 64), done: make(chan error, 1)}
	go r.readLoop(bufio.NewReader(stdout))
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return r
}

// readLoop decodes the server's frames (they are always well formed).
func (r *rawServer) readLoop(br *bufio.Reader) {
	defer close(r.msgs)
	for {
		length := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			fmt.Sscanf(line, "Content-Length: %d", &length)
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m map[string]any
		if json.Unmarshal(body, &m) == nil {
			r.msgs <- m
		}
	}
}

func (r *rawServer) write(raw string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, raw); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawServer) send(body string) { r.write(rawFrame(body)) }

func rawFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// response returns the next message that is not a server notification or request.
func (r *rawServer) response() map[string]any {
	r.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-r.msgs:
			if !ok {
				r.t.Fatal("the server closed its output")
			}
			if _, isCall := m["method"]; !isCall {
				return m
			}
		case <-timeout:
			r.t.Fatal("no answer within 10s")
		}
	}
}

// exited waits for the process to end and returns its error (nil = code 0).
func (r *rawServer) exited() error {
	r.t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(10 * time.Second):
		r.t.Fatal("the server did not exit")
	}
	return nil
}

func errorCode(m map[string]any) float64 {
	if e, ok := m["error"].(map[string]any); ok {
		return e["code"].(float64)
	}
	return 0
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`

// One broken frame costs one error; the stream then finds the next header
// and the session goes on: shutdown is answered and exit ends the process
// with code 0 (audit: the server stayed deaf and never exited).
func TestBrokenFrameThenShutdownAndExit(t *testing.T) {
	hover := `{"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{}}`
	cases := map[string]string{
		"non-numeric length": "Content-Length: abc\r\n\r\n" + hover,
		"length too short":   fmt.Sprintf("Content-Length: %d\r\n\r\n", len(hover)-10) + hover,
		"length too long":    fmt.Sprintf("Content-Length: %d\r\n\r\n", len(hover)+400) + hover,
	}
	for name, bad := range cases {
		t.Run(name, func(t *testing.T) {
			r := startRaw(t)
			r.send(initializeRequest)
			if m := r.response(); m["result"] == nil {
				t.Fatalf("initialize: %v", m)
			}
			r.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			r.write(bad)
			r.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
			first := r.response()
			if errorCode(first) != -32700 || first["id"] != nil {
				t.Fatalf("the broken frame must get one -32700 with id null, got %v", first)
			}
			second := r.response()
			if second["id"] != float64(3) || errorCode(second) != 0 {
				t.Fatalf("shutdown after the broken frame must succeed, got %v", second)
			}
			r.send(`{"jsonrpc":"2.0","method":"exit"}`)
			if err := r.exited(); err != nil {
				t.Errorf("exit after shutdown must end with code 0: %v", err)
			}
		})
	}
}

// LSP: any request before initialize is ServerNotInitialized (-32002), also
// shutdown; after shutdown every request is InvalidRequest (-32600); exit
// without shutdown ends with code 1.
func TestLifecycleErrors(t *testing.T) {
	r := startRaw(t)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	if m := r.response(); errorCode(m) != -32002 {
		t.Errorf("shutdown before initialize: %v, want -32002", m)
	}
	r.send(strings.Replace(initializeRequest, `"id":1`, `"id":2`, 1))
	if m := r.response(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`)
	if m := r.response(); errorCode(m) != 0 || m["id"] != float64(3) {
		t.Fatalf("shutdown: %v", m)
	}
	for i, method := range []string{"textDocument/hover", "shutdown", "initialize"} {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, 10+i, method))
		if m := r.response(); errorCode(m) != -32600 || m["id"] != float64(10+i) {
			t.Errorf("%s after shutdown: %v, want -32600", method, m)
		}
	}
	r.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := r.exited(); err != nil {
		t.Errorf("exit after shutdown must end with code 0: %v", err)
	}

	r2 := startRaw(t)
	r2.send(initializeRequest)
	r2.response()
	r2.send(`{"jsonrpc":"2.0","method":"exit"}`)
	if err := r2.exited(); err == nil || r2.cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit without shutdown must end with code 1: %v", err)
	}
}

// Command testplugin is a plugin for tests that misbehaves on request.
//
// Modes (first argument): "ok" (default) answers init with the tools below;
// "no-init" never answers init; "exit-on-init" dies at once; "garbage-init"
// prints garbage instead of an init answer; "echo-only" declares only echo. $TESTPLUGIN_MODE_FILE, when it
// names an existing file, overrides the mode with the file's content.
//
// Tools in "ok" mode: echo (answers params.text), slow (answers after
// params.ms milliseconds, concurrently), crash (exits mid-call), garbage
// (prints a non-JSON line), flood (prints endless bytes without a newline),
// image (answers an image content item).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

type message struct {
	Type   string         `json:"type"`
	Name   string         `json:"name"`
	CallID string         `json:"call_id"`
	Params map[string]any `json:"params"`
	Cwd    string         `json:"cwd"`
}

var outMu sync.Mutex

func send(v any) {
	data, _ := json.Marshal(v)
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(append(data, '\n'))
}

func text(id, s string, isErr bool) map[string]any {
	return map[string]any{"type": "result", "call_id": id, "is_error": isErr,
		"content": []map[string]any{{"type": "text", "text": s}}}
}

func main() {
	mode := "ok"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	// Tests switch the mode of future restarts through this file.
	if f := os.Getenv("TESTPLUGIN_MODE_FILE"); f != "" {
		if data, err := os.ReadFile(f); err == nil {
			mode = strings.TrimSpace(string(data))
		}
	}
	if f := os.Getenv("TESTPLUGIN_STARTS"); f != "" {
		fh, _ := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		fmt.Fprintln(fh, os.Getpid())
		fh.Close()
	}
	fmt.Fprintln(os.Stderr, "testplugin starting in mode", mode)
	if mode == "exit-on-init" {
		fmt.Fprintln(os.Stderr, "cannot open database")
		os.Exit(2)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg message
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			continue
		}
		switch msg.Type {
		case "init":
			switch mode {
			case "no-init":
				continue
			case "garbage-init":
				fmt.Println("Hello! I am a plugin.")
				continue
			case "echo-only":
				send(map[string]any{"type": "init", "tools": []map[string]any{{"name": "echo"}}})
				continue
			}
			send(map[string]any{"type": "init", "tools": []map[string]any{
				{"name": "echo", "description": "Echo text", "parameters": map[string]any{"type": "object",
					"properties": map[string]any{"text": map[string]any{"type": "string"}}}},
				{"name": "slow", "description": "Answer after ms", "preview": "{{.ms}}ms"},
				{"name": "crash", "description": "Exit mid-call"},
				{"name": "garbage", "description": "Print garbage"},
				{"name": "flood", "description": "Flood stdout"},
				{"name": "image", "description": "Answer an image"},
			}})
		case "call":
			handle(msg)
		}
	}
}

func handle(msg message) {
	switch msg.Name {
	case "echo":
		s, _ := msg.Params["text"].(string)
		if s == "" && msg.Cwd != "" {
			s = "cwd=" + msg.Cwd
		}
		send(text(msg.CallID, s, false))
	case "slow":
		ms, _ := msg.Params["ms"].(float64)
		go func() {
			time.Sleep(time.Duration(ms) * time.Millisecond)
			send(text(msg.CallID, fmt.Sprintf("slept %vms", ms), false))
		}()
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: runtime error: index out of range")
		os.Exit(3)
	case "garbage":
		fmt.Println("DEBUG: starting work on", msg.CallID)
	case "flood":
		chunk := []byte(strings.Repeat("x", 64<<10))
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				os.Exit(1)
			}
		}
	case "image":
		send(map[string]any{"type": "result", "call_id": msg.CallID, "content": []map[string]any{
			{"type": "text", "text": "a picture:"},
			{"type": "image", "mimeType": "image/png", "data": "aGVsbG8gd29ybGQh"},
		}})
	default:
		send(text(msg.CallID, "unknown tool "+msg.Name, true))
	}
}

package plugin

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"go.uber.org/zap"
)

// BenchmarkPluginToolCall is one echo call through Source and pluginTool:
// acquire, call_id routing, JSON both ways, result mapping.
func BenchmarkPluginToolCall(b *testing.B) {
	s := NewSource(config.Plugin{Name: "tp", Path: testPluginBin}, zap.NewNop())
	defer s.Close()
	list, err := s.Load(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var echo tools.Tool
	for _, t := range list {
		if t.Definition().Name == "echo" {
			echo = t
		}
	}
	ctx := context.Background()
	call := tools.Call{ID: "toolu_bench", Name: "echo", Input: map[string]any{"text": "hello"}}
	for b.Loop() {
		if res := echo.Run(ctx, call, tools.Env{}); res.IsError || res.Text != "hello" {
			b.Fatalf("result %+v", res)
		}
	}
}

// BenchmarkPluginDirectRoundTrip is the same call as raw JSON lines to the
// same plugin binary: the floor the plugin layer adds to.
func BenchmarkPluginDirectRoundTrip(b *testing.B) {
	cmd := exec.Command(testPluginBin)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	r := bufio.NewReader(stdout)
	enc := json.NewEncoder(stdin)
	if err := enc.Encode(initRequest{Type: typeInit}); err != nil {
		b.Fatal(err)
	}
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	req := callRequest{Type: typeCall, Name: "echo", CallID: "toolu_bench", Params: map[string]any{"text": "hello"}}
	for b.Loop() {
		if err := enc.Encode(req); err != nil {
			b.Fatal(err)
		}
		line, err := r.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var msg resultMessage
		if err := json.Unmarshal(line, &msg); err != nil || msg.text() != "hello" {
			b.Fatalf("result %s: %v", line, err)
		}
	}
}

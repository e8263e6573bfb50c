package custom

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools"
	"go.uber.org/zap/zaptest"
)

func build(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

func TestSourcesFromSettingsIntoRegistry(t *testing.T) {
	settings := config.Settings{Tools: config.Tools{
		Plugins: []config.Plugin{
			{Name: "wc", Path: build(t, "github.com/chatls/chatls/examples/wordcount-plugin")},
			{Name: "broken", Path: "/nonexistent/plugin"},
		},
		MCPServers: map[string]config.MCPServer{
			"local": {Command: build(t, "github.com/chatls/chatls/tools/mcp/testdata/stdioserver")},
		},
	}}
	sources := Sources(settings, zaptest.NewLogger(t))
	var names []string
	for _, s := range sources {
		names = append(names, s.Name())
	}
	if got := strings.Join(names, " "); got != "plugin:wc plugin:broken mcp:local" {
		t.Errorf("sources = %s", got)
	}

	reg := tools.NewRegistry(nil)
	Register(reg, sources, 10*time.Second)
	t.Cleanup(func() { Close(sources) })
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := reg.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	errs := reg.SourceErrors()
	if len(errs) != 1 || errs["plugin:broken"] == nil {
		t.Errorf("SourceErrors = %v, want only plugin:broken", errs)
	}
	for name, input := range map[string]map[string]any{
		"wordcount":  {"text": "two words"},
		"local:echo": {"text": "hi"},
	} {
		tool, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("%s not registered; have %v", name, reg.List())
			continue
		}
		if res := tool.Run(ctx, tools.Call{ID: "t1", Name: name, Input: input}, tools.Env{}); res.IsError {
			t.Errorf("%s: %+v", name, res)
		}
	}

	start := time.Now()
	if err := Close(sources); err != nil {
		t.Errorf("Close: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
}

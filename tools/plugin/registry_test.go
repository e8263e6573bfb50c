package plugin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/tools"
)

// TestWithRegistry checks the contract with tools.Registry: a failing plugin
// is listed in SourceErrors while the others work, and a restarted plugin
// that declares different tools replaces its list.
func TestWithRegistry(t *testing.T) {
	modeFile := filepath.Join(t.TempDir(), "mode")
	good := newTestSource(t, "ok", map[string]string{"TESTPLUGIN_MODE_FILE": modeFile})
	bad := newTestSource(t, "no-init", nil)
	bad.cfg.Name = "bad"
	bad.initTimeout = 100 * time.Millisecond

	reg := tools.NewRegistry(nil)
	good.OnToolsChanged(func(list []tools.Tool) { reg.Replace(good.Name(), list) })
	reg.AddSource(good, time.Minute)
	reg.AddSource(bad, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := reg.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reg.SourceErrors()["plugin:bad"]; err == nil || !strings.Contains(err.Error(), "did not answer init") {
		t.Errorf("SourceErrors = %v", reg.SourceErrors())
	}
	echo, ok := reg.Lookup("echo")
	if !ok {
		t.Fatalf("echo not registered; have %v", reg.List())
	}
	wantResult(t, run(t, echo, map[string]any{"text": "via registry"}), false, "via registry")

	changed := make(chan struct{}, 1)
	reg.OnChange(func() { changed <- struct{}{} })
	if err := os.WriteFile(modeFile, []byte("echo-only"), 0o644); err != nil {
		t.Fatal(err)
	}
	crash, _ := reg.Lookup("crash")
	wantResult(t, run(t, crash, nil), true, "died")
	select {
	case <-changed:
	case <-time.After(time.Minute):
		t.Fatal("registry not told about the new tool list")
	}
	if _, ok := reg.Lookup("slow"); ok {
		t.Error("slow still registered after the plugin dropped it")
	}
	wantResult(t, run(t, echo, map[string]any{"text": "again"}), false, "again")
}

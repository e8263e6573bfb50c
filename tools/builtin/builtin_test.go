package builtin

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chatls/chatls/tools"
)

func TestRegistryBuiltinsListedSorted(t *testing.T) {
	reg := tools.NewRegistry(Tools(Options{}))
	var names []string
	for _, d := range reg.List() {
		names = append(names, d.Name)
	}
	want := "bash calculator copy delete edit find git_branch git_commit git_diff git_log git_push git_status grep ls mkdir move read time web_fetch write"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("List = %s, want %s", got, want)
	}
	if !reg.Ready() {
		t.Error("a registry without sources is ready")
	}
	if _, ok := reg.Lookup("read"); !ok {
		t.Error("read not found")
	}
}

// TestSetBuiltinsAppliesNewOptions: a settings reload that changes
// tools.web_fetch.allowHosts reaches web_fetch through SetBuiltins, without
// a change notification (definitions are the same).
func TestSetBuiltinsAppliesNewOptions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "internal page") }))
	defer srv.Close()
	reg := tools.NewRegistry(Tools(Options{}))
	notified := 0
	reg.OnChange(func() { notified++ })
	r := tools.NewRunner(reg)
	fetch := func() tools.Result {
		return r.Run(context.Background(), tools.Call{ID: "w", Name: "web_fetch", Input: map[string]any{"url": srv.URL}}, testEnv(t))
	}
	if res := fetch(); !res.IsError || !strings.Contains(res.Text, "refusing to connect to 127.0.0.1") {
		t.Fatalf("before: %q", res.Text)
	}
	reg.SetBuiltins(Tools(Options{WebFetchAllowHosts: []string{"127.0.0.1"}}))
	if res := fetch(); res.IsError || res.Text != "internal page" {
		t.Errorf("after allowing 127.0.0.1: %q", res.Text)
	}
	if notified != 0 {
		t.Errorf("listeners notified %d times for unchanged definitions", notified)
	}
	// A different set of built-ins is a change listeners hear about.
	reg.SetBuiltins(Tools(Options{})[:3])
	if _, ok := reg.Lookup("web_fetch"); ok || notified != 1 {
		t.Errorf("web_fetch still there=%v, notified %d", ok, notified)
	}
}

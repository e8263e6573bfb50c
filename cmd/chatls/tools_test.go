package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/tools"
)

func TestRunToolsListsBuiltins(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runTools(nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 11 || !strings.HasPrefix(lines[0], "NAME") || !strings.HasPrefix(lines[1], "bash ") {
		t.Errorf("output:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "read        builtin") {
		t.Errorf("no read row:\n%s", out.String())
	}
}

func TestRunToolsJSONHasSchemas(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := runTools([]string{"--json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var got []toolJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 || got[0].Name != "bash" || got[0].Source != "builtin" || !json.Valid(got[0].Schema) {
		t.Errorf("got %+v", got[0])
	}
}

type failingSource struct{}

func (failingSource) Name() string { return "plugin:broken" }
func (failingSource) Load(context.Context) ([]tools.Tool, error) {
	return nil, errors.New("exec: no such file")
}

func TestRunToolsWarnsAboutFailingSources(t *testing.T) {
	old := toolRegistry
	defer func() { toolRegistry = old }()
	toolRegistry = func() *tools.Registry {
		r := old()
		r.AddSource(failingSource{}, time.Second)
		return r
	}
	var out, errOut bytes.Buffer
	if code := runTools(nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "warning: plugin:broken: exec: no such file") {
		t.Errorf("stderr: %q", errOut.String())
	}
	if code := runTools([]string{"extra"}, &out, &errOut); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}

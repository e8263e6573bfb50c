package target_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/tools/target"
)

// fakeEngine is an engine CLI that keeps the docker/podman contract the
// backend uses (inspect --format {{.State.Running}} NAME; exec -i NAME sh
// -lc SCRIPT ARG…) and runs the script here for real: the container is a
// directory. (Podman needs runc and a containers.conf this machine may
// lack; docs/targets.md says why.)
func fakeEngine(t *testing.T, running bool) string {
	t.Helper()
	dir := t.TempDir()
	state := "false"
	if running {
		state = "true"
	}
	script := `#!/bin/sh
case $1 in
inspect) [ "$4" = box ] || { echo "Error: no such container $4" >&2; exit 125; }; echo ` + state + ` ;;
exec) shift; [ "$1" = -i ] && shift; [ "$1" = box ] || exit 125; shift; exec "$@" ;;
*) exit 125 ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "podman"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	return dir
}

func TestContainerRunsThroughTheEngineContract(t *testing.T) {
	fakeEngine(t, true)
	m := target.NewContainer("box", "box", "podman")
	var out bytes.Buffer
	p, err := target.Run(context.Background(), m, "echo in-box; exit 4", t.TempDir(), &out)
	if err != nil || p.Code != 4 || out.String() != "in-box\n" {
		t.Fatalf("run %+v %v %q", p, err, out.String())
	}
	f := filepath.Join(t.TempDir(), "f.txt")
	if status, err := target.WriteFile(context.Background(), m, "", f, []byte("it's\n")); err != nil || status != "ok" {
		t.Fatalf("write %q %v", status, err)
	}
	if data, _ := os.ReadFile(f); string(data) != "it's\n" {
		t.Fatalf("written %q", data)
	}
}

func TestContainerNotRunningIsAClearError(t *testing.T) {
	fakeEngine(t, false)
	m := target.NewContainer("box", "box", "podman")
	_, err := target.Run(context.Background(), m, "echo never", "", &bytes.Buffer{})
	if !target.IsUnreachable(err) || !strings.Contains(err.Error(), "container box is not running") {
		t.Fatalf("error %v", err)
	}
	missing := target.NewContainer("gone", "gone", "podman")
	if _, err := target.Run(context.Background(), missing, "true", "", &bytes.Buffer{}); !target.IsUnreachable(err) || !strings.Contains(err.Error(), "no such container") {
		t.Fatalf("missing container: %v", err)
	}
}

package target_test

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/tools/target"
)

// realPodman starts a container of its own with real podman: an image
// imported from a root filesystem holding a static busybox (no registry),
// podman's storage and configuration in a temp dir (vfs storage, runc:
// crun cannot set RLIMIT_NOFILE on some machines). Where podman or a
// static busybox is missing, or podman cannot run a container here, the
// test skips and says why; CHATLS_REQUIRE_PODMAN=1 makes that a failure.
func realPodman(t *testing.T) string {
	t.Helper()
	skip := func(why string, args ...any) {
		t.Helper()
		if os.Getenv("CHATLS_REQUIRE_PODMAN") != "" {
			t.Fatalf(why, args...)
		}
		t.Skipf(why, args...)
	}
	if _, err := exec.LookPath("podman"); err != nil {
		skip("podman is not installed")
	}
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		skip("busybox is not installed (the image is made of busybox-static)")
	}
	if f, err := elf.Open(busybox); err != nil || f.Section(".interp") != nil {
		skip("%s is not a static binary (install busybox-static)", busybox)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "containers.conf")
	write(t, conf, "[containers]\ndefault_ulimits = []\n[engine]\nruntime = \"runc\"\n")
	storage := filepath.Join(dir, "storage.conf")
	write(t, storage, fmt.Sprintf("[storage]\ndriver = \"vfs\"\ngraphroot = %q\nrunroot = %q\n", filepath.Join(dir, "store"), filepath.Join(dir, "run")))
	t.Setenv("CONTAINERS_CONF", conf)
	t.Setenv("CONTAINERS_STORAGE_CONF", storage)

	rootfs := filepath.Join(dir, "rootfs")
	for _, d := range []string{"bin", "tmp", "proc", "dev", "sys", "work"} {
		os.MkdirAll(filepath.Join(rootfs, d), 0o755)
	}
	os.Chmod(filepath.Join(rootfs, "tmp"), 0o1777)
	data, err := os.ReadFile(busybox)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(rootfs, "bin", "busybox"), string(data))
	os.Chmod(filepath.Join(rootfs, "bin", "busybox"), 0o755)
	applets, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range strings.Fields(string(applets)) {
		if a != "busybox" {
			os.Symlink("busybox", filepath.Join(rootfs, "bin", a))
		}
	}
	tarball := filepath.Join(dir, "rootfs.tar")
	podman := func(args ...string) (string, error) {
		out, err := exec.Command("podman", args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := exec.Command("tar", "-C", rootfs, "-cf", tarball, ".").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	image := "localhost/chatls-target-test"
	if out, err := podman("import", tarball, image); err != nil {
		skip("podman cannot import an image here: %s", out)
	}
	name := fmt.Sprintf("chatls-test-%d", time.Now().UnixNano())
	if out, err := podman("run", "-d", "--name", name, image, "/bin/sleep", "600"); err != nil {
		skip("podman cannot run a container here: %s", out)
	}
	t.Cleanup(func() { podman("rm", "-f", "-t", "0", name) })
	return name
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The container backend against real podman: output and exit codes, files
// in and out on stdin, a cancel that leaves nothing behind, a container
// that stopped.
func TestContainerWithRealPodman(t *testing.T) {
	name := realPodman(t)
	m := target.NewContainer("box", name, "auto")
	ctx := context.Background()

	var out bytes.Buffer
	p, err := target.Run(ctx, m, "echo in-box; uname -n; exit 4", "/work", &out)
	if err != nil || p.Code != 4 || !strings.HasPrefix(out.String(), "in-box\n") {
		t.Fatalf("run %+v %v %q", p, err, out.String())
	}
	content := "it's \"quoted\"\n$HOME `x`\n\x00binary\n"
	if status, err := target.WriteFile(ctx, m, "/work", "sub/f.txt", []byte(content)); err != nil || status != "ok" {
		t.Fatalf("write %q %v", status, err)
	}
	info, r, err := target.ReadFile(ctx, m, "/work", "sub/f.txt")
	if err != nil || info.Kind != "file" {
		t.Fatalf("read %+v %v", info, err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != content {
		t.Fatalf("read back %q, want %q", got, content)
	}

	// Cancel kills the whole tree inside the container.
	cctx, cancel := context.WithCancel(ctx)
	w := newSignalWriter("started")
	done := make(chan error, 1)
	go func() {
		_, err := target.Run(cctx, m, "echo started; sleep 300.4321 & sleep 300.4321; wait", "", w)
		done <- err
	}()
	select {
	case <-w.seen:
	case <-time.After(30 * time.Second):
		t.Fatal("the command did not start")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("cancelled run: %v", err)
	}
	if n := countProcesses(t, "sleep 300.4321"); n != 0 {
		t.Fatalf("%d sleeps left in the container after the cancel", n)
	}

	if out, err := exec.Command("podman", "stop", "-t", "0", name).CombinedOutput(); err != nil {
		t.Fatalf("stop: %v %s", err, out)
	}
	if _, err := target.Run(ctx, m, "echo never", "", &bytes.Buffer{}); !target.IsUnreachable(err) || !strings.Contains(err.Error(), "is not running") {
		t.Fatalf("a stopped container: %v", err)
	}
}

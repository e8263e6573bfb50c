package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// waitChange waits for onChange(path) without sleeping blindly.
func waitChange(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("change for %s, want %s", got, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no change reported for %s", want)
	}
}

// drain takes the changes reported until none comes for 3 debounces.
func drain(ch <-chan string) {
	for {
		select {
		case <-ch:
		case <-time.After(3 * debounce):
			return
		}
	}
}

func TestWatch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".chatls.toml")
	later := filepath.Join(dir, "not", "yet", "config.toml")
	testfs.Write(t, file, "autopilot = true\n")
	ch := make(chan string, 16)
	w, err := Watch([]string{file, later}, func(p string) { ch <- p })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// A plain write.
	testfs.Write(t, file, "autopilot = false\n")
	waitChange(t, ch, file)

	// An editor's save: write a temp file and rename it over the original.
	tmp := filepath.Join(dir, ".chatls.toml.swp")
	testfs.Write(t, tmp, "autopilot = true\n")
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, file)

	// A burst is debounced into one change. What the save above still
	// reports is drained first; on a busy machine the five writes can
	// themselves be spread wider than the debounce, and such a try is
	// made again rather than counted, as is a try whose events arrived
	// spread out.
	for try := 1; ; try++ {
		drain(ch)
		begin := time.Now()
		for i := 0; i < 5; i++ {
			testfs.Write(t, file, "autopilot = true\n")
		}
		spread := time.Since(begin)
		waitChange(t, ch, file)
		if spread > debounce/2 {
			if try == 10 {
				t.Fatalf("five writes never fitted in %s", debounce/2)
			}
			continue
		}
		select {
		case p := <-ch:
			// A busy machine may also deliver the events themselves spread
			// wider than the debounce; a watcher that never coalesces fails
			// every try.
			if try == 10 {
				t.Fatalf("burst reported twice in every try (%s)", p)
			}
			continue
		case <-time.After(3 * debounce):
		}
		break
	}

	// Directories that did not exist are picked up when they appear.
	if err := os.MkdirAll(filepath.Dir(later), 0o755); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, later, "autopilot = true\n")
	waitChange(t, ch, later)

	// Removal is a change too.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, file)

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, file, "x = 1\n")
	select {
	case p := <-ch:
		t.Fatalf("change after Close: %s", p)
	case <-time.After(3 * debounce):
	}
}

package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chatls/chatls/tools"
)

// The result store (Flemma 0.12, SPEC §1): where a document's overflowing
// output and its `flemma.save_to` files go — `.flemma/<document name>/`
// beside the document, a per-process directory under $TMPDIR/flemma/unnamed/
// for one without a file. It is in the writable set.

// resultStore is the store of the document at path.
func resultStore(path string) string {
	if path == "" {
		return filepath.Join(os.TempDir(), "flemma", "unnamed", strconv.Itoa(os.Getpid()))
	}
	return filepath.Join(filepath.Dir(path), ".flemma", filepath.Base(path))
}

// ensureStore makes the store when a call is about to use it; where it
// cannot be made (a read-only directory) the per-process one stands in.
func ensureStore(dir string) string {
	if err := os.MkdirAll(dir, 0o755); err == nil {
		return dir
	}
	tmp := resultStore("")
	_ = os.MkdirAll(tmp, 0o755)
	return tmp
}

// savePreview bounds what a `flemma.save_to` result shows in the document.
const (
	savePreviewLines = 20
	savePreviewBytes = 2000
)

// saveTo carries out `flemma.save_to`: the call's full output goes to
// path inside the store, and the result is a preview and
// `[Output saved: PATH]`. A path that leaves the store is refused — the
// policy never saw it, so it may not write anywhere else — and the output
// stays in the result.
func saveTo(store, path string, res tools.Result) tools.Result {
	target := path
	if !filepath.IsAbs(target) {
		target = filepath.Join(store, target)
	}
	target = filepath.Clean(target)
	if rel, err := filepath.Rel(store, target); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		res.Text += fmt.Sprintf("\n\n[Output not saved: %s is outside the result store %s]", path, store)
		return res
	}
	full := res.Text
	if res.Truncated && res.FullOutputPath != "" {
		if data, err := os.ReadFile(res.FullOutputPath); err == nil {
			full = string(data)
		}
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err == nil {
		err = os.WriteFile(target, []byte(full), 0o644)
		if err == nil {
			res.Text = preview(full) + "\n\n[Output saved: " + path + "]"
			res.Truncated, res.FullOutputPath = false, target
			return res
		}
		res.Text += fmt.Sprintf("\n\n[Output not saved to %s: %v]", path, err)
		return res
	}
	res.Text += fmt.Sprintf("\n\n[Output not saved to %s: cannot make its directory]", path)
	return res
}

// preview is the head of text a saved output's result shows.
func preview(text string) string {
	lines := strings.SplitAfterN(text, "\n", savePreviewLines+1)
	if len(lines) > savePreviewLines {
		lines = lines[:savePreviewLines]
	}
	head := strings.TrimRight(strings.Join(lines, ""), "\n")
	if len(head) > savePreviewBytes {
		head = head[:savePreviewBytes]
	}
	return head
}

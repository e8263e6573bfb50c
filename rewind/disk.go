package rewind

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
)

// diskEntry is a file's state on disk as git would record it: a directory
// or nothing is "absent" (no file at that path).
func diskEntry(path string) (entry, error) {
	fi, err := os.Lstat(path)
	switch {
	case os.IsNotExist(err) || (err == nil && fi.IsDir()):
		return entry{}, nil
	case err != nil:
		return entry{}, err
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return entry{}, err
		}
		return entry{mode: "120000", oid: blobID([]byte(target))}, nil
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(path)
		if err != nil {
			return entry{}, err
		}
		mode := "100644"
		if fi.Mode()&0o100 != 0 {
			mode = "100755" // git records the owner's exec bit only
		}
		return entry{mode: mode, oid: blobID(data)}, nil
	}
	return entry{mode: "other"}, nil // a socket or device: never equal to a file
}

// blobID is git's name of a blob (SHA-1 object format, the store's).
func blobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// fileMode is the mode a tree entry is written back with.
func (e entry) fileMode() os.FileMode {
	switch e.mode {
	case "100755":
		return 0o755
	case "120000":
		return os.ModeSymlink
	}
	return 0o644
}

// currentEntry is a file's state now: on disk, or, for a regular file open
// in an editor, its buffer's text with the file's mode. A buffer does not
// make a file exist: one the calls deleted is absent, whatever is open.
func currentEntry(path string, buffers Buffers) (entry, error) {
	e, err := diskEntry(path)
	if err != nil || buffers == nil || (e.mode != "100644" && e.mode != "100755") {
		return e, err
	}
	if text, open := buffers(path); open {
		e.oid = blobID(text)
	}
	return e, nil
}

// overlayFile is a file of a scope recorded as given instead of as on
// disk: a file open in an editor, which a rewind changes there.
type overlayFile struct {
	content []byte
	mode    os.FileMode
	absent  bool
}

// beforeOverlay records skipped files as their buffers hold them (the
// disk, when not open).
func beforeOverlay(root string, skipped []Change, buffers Buffers) map[string]overlayFile {
	if buffers == nil {
		return nil
	}
	out := map[string]overlayFile{}
	for _, c := range skipped {
		if c.root != root {
			continue
		}
		if text, open := buffers(c.Path); open {
			if e, err := diskEntry(c.Path); err == nil && (e.mode == "100644" || e.mode == "100755") {
				out[c.rel] = overlayFile{content: text, mode: e.fileMode()}
			}
		}
	}
	return out
}

// afterOverlay records skipped files as the caller leaves them.
func afterOverlay(root string, skipped []Change) map[string]overlayFile {
	out := map[string]overlayFile{}
	for _, c := range skipped {
		if c.root != root {
			continue
		}
		out[c.rel] = overlayFile{content: c.Content, mode: c.Mode, absent: c.Kind == Remove}
	}
	return out
}

// bufferOverlay is overlay with the named paths (relative) that buffers
// has open and that are regular files on disk, recorded as their buffers
// hold them (Scope.Buffers).
func bufferOverlay(root string, rel []string, buffers Buffers, overlay map[string]overlayFile) map[string]overlayFile {
	if buffers == nil {
		return overlay
	}
	out := map[string]overlayFile{}
	for p, ov := range overlay {
		out[p] = ov
	}
	for _, p := range rel {
		if _, given := out[p]; given {
			continue
		}
		abs := absPath(root, p)
		if text, open := buffers(abs); open {
			if e, err := diskEntry(abs); err == nil && (e.mode == "100644" || e.mode == "100755") {
				out[p] = overlayFile{content: text, mode: e.fileMode()}
			}
		}
	}
	return out
}

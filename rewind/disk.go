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

package rewind

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// A checkpoint's commit and refs are written here, in git's loose formats,
// rather than by `git commit-tree` and `git update-ref`: each git process
// costs 10–20 ms on a busy machine (start-up and reading the 10,000-entry
// index), which kept a checkpoint over twice `git status` (SPEC §10). Both
// formats are small and stable; the store is a private, SHA-1 repository
// that only chatls writes, and `git fsck` in the tests reads what is here.

// writeCommit stores the commit of tree with message, made by chatls at
// when, and returns its ID.
func (s *Store) writeCommit(tree, message string, when time.Time) (string, error) {
	who := fmt.Sprintf("chatls <chatls@localhost> %d +0000", when.Unix())
	body := "tree " + tree + "\nauthor " + who + "\ncommitter " + who + "\n\n" + message + "\n"
	return s.writeObject("commit", []byte(body))
}

// writeObject stores a loose object (zlib of "KIND LEN\0BODY", named by the
// SHA-1 of that) unless it is there, and returns its ID.
func (s *Store) writeObject(kind string, body []byte) (string, error) {
	header := fmt.Sprintf("%s %d\x00", kind, len(body))
	sum := sha1.New()
	sum.Write([]byte(header))
	sum.Write(body)
	id := hex.EncodeToString(sum.Sum(nil))
	path := filepath.Join(s.dir, "objects", id[:2], id[2:])
	if _, err := os.Stat(path); err == nil {
		return id, nil // content-addressed: the same bytes
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(header))
	w.Write(body)
	if err := w.Close(); err != nil {
		return "", err
	}
	if err := writeAtomically(path, z.Bytes(), 0o444); err != nil {
		return "", fmt.Errorf("rewind: cannot store a commit: %w", err)
	}
	return id, nil
}

// writeRef points the loose ref name at commit. A loose ref wins over a
// packed one of the same name, as git reads them.
func (s *Store) writeRef(name, commit string) error {
	if err := writeAtomically(filepath.Join(s.dir, filepath.FromSlash(name)), []byte(commit+"\n"), 0o644); err != nil {
		return fmt.Errorf("rewind: cannot record %s: %w", name, err)
	}
	return nil
}

// writeAtomically writes data to path through a temporary file beside it
// renamed into place: a reader sees the old content or the new, whole.
func writeAtomically(path string, data []byte, mode os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

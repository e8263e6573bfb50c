package rewind

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Options tune a Store; zero values take the defaults of SPEC §10.
type Options struct {
	// MaxFileSize is the largest file a checkpoint stores, in bytes; larger
	// ones are listed as not covered. Default 10 MB.
	MaxFileSize int64
	// KeepDays is how long Collect keeps a checkpoint. Default 30.
	KeepDays int
	// Now is the clock (tests age checkpoints with it). Default time.Now.
	Now func() time.Time
}

const (
	DefaultMaxFileSize = 10 << 20
	DefaultKeepDays    = 30
)

// Store is chatls's checkpoint store: one bare git repository shared by
// every workspace (so objects are deduplicated across all of them), with a
// private index per workspace root. It is safe for concurrent use by
// goroutines and by processes.
type Store struct {
	dir string
	opt Options
}

// storeExclude is the store's info/exclude, read for every workspace:
// .flemma/ holds chatls's own record of conversations (tool output, saved
// files) that a rewind of the workspace must not take back; and the .chat
// files are the conversations themselves, which chatls writes while calls
// run (results, answers) and the user types into: a rewind of files must
// never put back an older conversation over what the user wrote (the
// conversation's own rewind is --conversation, one edit of the document).
const storeExclude = "# chatls: never checkpointed\n.flemma/\n*.chat\n"

// storeAttributes is the store's info/attributes, which git ranks above a
// workspace's .gitattributes: a checkpoint holds a file's bytes exactly,
// with no end-of-line conversion, clean filter (LFS) or keyword expansion,
// so that what is restored is what was there.
const storeAttributes = "* -text !eol -filter -ident !working-tree-encoding\n"

// Open opens the store in dir, creating it if needed. The caller passes
// $XDG_STATE_HOME/chatls/checkpoints (config.StateDir()/checkpoints).
func Open(dir string, opt Options) (*Store, error) {
	if opt.MaxFileSize <= 0 {
		opt.MaxFileSize = DefaultMaxFileSize
	}
	if opt.KeepDays <= 0 {
		opt.KeepDays = DefaultKeepDays
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("rewind: store directory %q: %w", dir, err)
	}
	s := &Store{dir: dir, opt: opt}
	for _, d := range []string{s.private("workspaces"), s.private("tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("rewind: cannot create the checkpoint store (check permissions of %s): %w", dir, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), lockTimeout+gitTimeout)
	defer cancel()
	unlock, err := flock(ctx, s.private("init.lock"), false)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); os.IsNotExist(err) {
		if _, err := s.git("", "").run(ctx, nil, "init", "--bare", "--quiet", dir); err != nil {
			return nil, err
		}
	}
	for name, text := range map[string]string{"exclude": storeExclude, "attributes": storeAttributes} {
		if err := writeIfDifferent(filepath.Join(dir, "info", name), []byte(text)); err != nil {
			return nil, fmt.Errorf("rewind: cannot write the store's info/%s: %w", name, err)
		}
	}
	return s, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// private is a path in the store that is chatls's, not git's.
func (s *Store) private(elem ...string) string {
	return filepath.Join(append([]string{s.dir, "chatls"}, elem...)...)
}

// workspace is the directory of a root's private index and lock.
func (s *Store) workspace(root string) string { return s.private("workspaces", key(root)) }

// git is the store's git for one workspace root and index ("" for none).
func (s *Store) git(root, index string) gitEnv {
	e := gitEnv{gitDir: s.dir, workTree: root, index: index, date: s.opt.Now()}
	if root != "" {
		e.excludes = userExclude(root)
	}
	return e
}

// key names a document, a root or a tool-use ID in ref and file names:
// IDs hold characters refs refuse (Flemma's "urn:flemma:tool:…") and differ
// only in case, which a case-insensitive file system would merge.
func key(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

func writeIfDifferent(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

package rewind

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// Scope says what a checkpoint records.
type Scope struct {
	Root string // the workspace root, absolute
	Doc  string // the document whose call this is, absolute
	ID   string // the tool-use ID
	// Paths are the files the call names (absolute, or relative to Root);
	// nil records the whole workspace: tracked files and untracked ones
	// that .gitignore does not exclude.
	Paths []string
	// Buffers, when set, records the named paths open in an editor as
	// their buffers hold them, not as on disk: a call that changes a file
	// in the editor instead of on disk (an agent's write through
	// workspace/applyEdit). Only regular files on disk are taken so.
	Buffers Buffers

	// overlay records some named paths (relative) as given, not as on
	// disk: the files a rewind changes through an editor.
	overlay map[string]overlayFile
}

// Ref is a recorded checkpoint.
type Ref struct {
	Name   string // refs/chatls/<hash(doc)>/<hash(id)>/before or …/after
	Commit string
	Tree   string
}

// Uncovered is a file a checkpoint did not store.
type Uncovered struct {
	Path   string `json:"path"` // relative to the root, slash-separated
	Reason string `json:"reason"`
}

// ErrOutsideRoot is returned for a named path outside the scope's root: a
// checkpoint belongs to one workspace. Checkpoint such a file with its own
// directory as Root, or tell the user it is not covered.
var ErrOutsideRoot = errors.New("path is outside the workspace root")

// meta is what a checkpoint commit's message holds, one line of JSON.
type meta struct {
	Doc        string      `json:"doc"`
	ID         string      `json:"id"`
	Root       string      `json:"root"`
	Stage      string      `json:"stage"` // "before" or "after"
	Time       time.Time   `json:"time"`
	Whole      bool        `json:"whole,omitempty"`
	Paths      []string    `json:"paths,omitempty"` // the named scope, relative
	NotCovered []Uncovered `json:"notCovered,omitempty"`
	Absent     []string    `json:"absent,omitempty"`   // named paths that did not exist
	RewindTo   string      `json:"rewindTo,omitempty"` // set on a rewind's own checkpoint
}

func (m meta) message() string {
	b, _ := json.Marshal(m) // plain strings and times: cannot fail
	return string(b)
}

func parseMeta(line string) (meta, error) {
	var m meta
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return m, fmt.Errorf("rewind: a checkpoint's record is damaged (%v); Collect or remove the store to start again", err)
	}
	return m, nil
}

const (
	refRoot      = "refs/chatls/"
	workspaceRef = "refs/chatls-workspace/" // the last whole snapshot of each root
	stageBefore  = "before"
	stageAfter   = "after"
)

func docRefs(doc string) string            { return refRoot + key(doc) + "/" }
func callRef(doc, id, stage string) string { return docRefs(doc) + key(id) + "/" + stage }

// relPaths makes the scope's paths relative to root and slash-separated,
// refusing any outside it.
func relPaths(root string, paths []string) ([]string, error) {
	rel := make([]string, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		r, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("rewind: %s: %w %s", p, ErrOutsideRoot, root)
		}
		if r == "." {
			return nil, fmt.Errorf("rewind: %s is the workspace root itself; pass nil Paths for the whole workspace", p)
		}
		rel = append(rel, filepath.ToSlash(r))
	}
	return rel, nil
}

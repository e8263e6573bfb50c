package surface

import (
	"os"
	"sync"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// maxFileStats bounds the checker's memory; past it the cache starts over.
const maxFileStats = 8192

// FileRefChecker flags `@./file` references whose file is missing (SPEC §1),
// resolved against the document's directory. Diagnostics are recomputed
// after every (debounced) keystroke and a long chat may name thousands of
// files, so each file's stat is reused for TTL: a file created meanwhile is
// seen at the first recomputation after that. Safe for concurrent use.
type FileRefChecker struct {
	TTL time.Duration
	// Stat and Now default to os.Stat and time.Now (tests replace them).
	Stat func(path string) (os.FileInfo, error)
	Now  func() time.Time

	mu    sync.Mutex
	stats map[string]map[string]fileStat // directory → reference as written
	count int
}

type fileStat struct {
	exists bool
	at     time.Time
}

// Diagnostics returns `missing-file-reference` warnings for the document.
// Without a directory (an unsaved buffer) nothing can be resolved: none.
func (c *FileRefChecker) Diagnostics(doc *chatdoc.Document, docDir string) []chatdoc.Diagnostic {
	if doc == nil || docDir == "" {
		return nil
	}
	now := time.Now()
	if c.Now != nil {
		now = c.Now()
	}
	return chatdoc.FileRefDiagnostics(doc, func(ref string) bool {
		return c.exists(docDir, ref, now)
	})
}

// exists answers from the cache when it can; keyed by directory and the
// reference as written, so a lookup allocates nothing.
func (c *FileRefChecker) exists(dir, ref string, now time.Time) bool {
	c.mu.Lock()
	if s, ok := c.stats[dir][ref]; ok && now.Sub(s.at) < c.TTL {
		c.mu.Unlock()
		return s.exists
	}
	c.mu.Unlock()
	stat := c.Stat
	if stat == nil {
		stat = os.Stat
	}
	_, err := stat(refPath(dir, ref))
	exists := err == nil
	c.mu.Lock()
	if c.stats == nil || c.count >= maxFileStats {
		c.stats, c.count = map[string]map[string]fileStat{}, 0
	}
	byRef := c.stats[dir]
	if byRef == nil {
		byRef = map[string]fileStat{}
		c.stats[dir] = byRef
	}
	if _, seen := byRef[ref]; !seen {
		c.count++
	}
	byRef[ref] = fileStat{exists: exists, at: now}
	c.mu.Unlock()
	return exists
}

package e2e

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The server gives back the pages of its binary that only start-up touched
// (internal/coldpages) before it serves, and serves on: each page it needs
// again comes back from the page cache.
func TestServerReleasesStartupPagesAndServesOn(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("a.chat", "@You:\nhello\n\n@Assistant:\n**Tool Use:** `bash` (`t1`)\n```json\n{\"command\": \"true\"}\n```\n")
	if hover := s.hover(uri, "t1"); !strings.Contains(hover, "bash") {
		t.Fatalf("hover after the release:\n%s", hover)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.c.Shutdown(ctx) // the whole log is read once the process ended
	m := regexp.MustCompile(`start-up pages released\s+\{"mapped bytes": (\d+)\}`).FindStringSubmatch(s.c.Stderr())
	if m == nil {
		t.Fatalf("no release in the server's log:\n%s", s.c.Stderr())
	}
	// The code and constant data of the ~80 MB binary: tens of megabytes.
	if n, _ := strconv.Atoi(m[1]); n < 8<<20 {
		t.Fatalf("released mappings of %d bytes, want the binary's code and constant data", n)
	}
}

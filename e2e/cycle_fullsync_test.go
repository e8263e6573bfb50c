package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// A full-text didChange (Vim's ALE, Kakoune) that turns pending into
// approved is an approval like an incremental one: the tool runs.
func TestFullSyncApprovalRuns(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("full.chat", strings.Replace(revokeDoc, "touch marker-a", "echo full-sync-ran", 1))
	s.settle(uri)
	text := strings.Replace(s.c.Doc(uri).Text, "status=pending", "status=approved", 1)
	if err := s.c.ReplaceAll(s.ctx, uri, text); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```\nfull-sync-ran\n```")
}

// Full-text changes that edit the call's input revoke the approval: in the
// same change as the approval, or in a later one before the tool ran
// (autopilot off). advance hands the block back to the user; nothing runs.
func TestFullSyncInputEditRevokes(t *testing.T) {
	t.Run("same change", func(t *testing.T) {
		s := start(t, sessionOptions{})
		uri := s.open("same.chat", revokeDoc)
		s.settle(uri)
		text := strings.Replace(strings.Replace(s.c.Doc(uri).Text, "status=pending", "status=approved", 1), "touch marker-a", "touch marker-z", 1)
		if err := s.c.ReplaceAll(s.ctx, uri, text); err != nil {
			t.Fatal(err)
		}
		s.advance(uri) // autopilot may already have handed it back
		s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```flemma:tool status=pending\n```")
		if exists(filepath.Join(s.ws, "marker-a")) || exists(filepath.Join(s.ws, "marker-z")) {
			t.Fatal("an approval of another input ran the tool")
		}
	})
	t.Run("later change", func(t *testing.T) {
		s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}})
		uri := s.open("later.chat", revokeDoc)
		s.settle(uri)
		if err := s.c.ReplaceAll(s.ctx, uri, strings.Replace(s.c.Doc(uri).Text, "status=pending", "status=approved", 1)); err != nil {
			t.Fatal(err)
		}
		if err := s.c.ReplaceAll(s.ctx, uri, strings.Replace(s.c.Doc(uri).Text, "touch marker-a", "touch marker-z", 1)); err != nil {
			t.Fatal(err)
		}
		s.advance(uri)
		s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```flemma:tool status=pending\n```")
		if exists(filepath.Join(s.ws, "marker-a")) || exists(filepath.Join(s.ws, "marker-z")) {
			t.Fatal("a revoked approval ran the tool")
		}
		// Approving again, for the new input, runs it.
		if err := s.c.ReplaceAll(s.ctx, uri, strings.Replace(s.c.Doc(uri).Text, "status=pending", "status=approved", 1)); err != nil {
			t.Fatal(err)
		}
		s.advance(uri)
		s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```\n(no output)\n```")
		if !exists(filepath.Join(s.ws, "marker-z")) || exists(filepath.Join(s.ws, "marker-a")) {
			t.Error("the re-approved call must run with its new input only")
		}
	})
}

// placeholderStyle = "suffix" writes Flemma 0.11 placeholders: a header
// suffix and a plain empty fence; approving and running work on them.
func TestSuffixPlaceholderStyle(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"placeholderStyle": "suffix"}}})
	uri := s.open("suffix.chat", twoBashDoc("echo suffix-a", "touch suffix-b"))
	s.advance(uri)
	s.waitText(uri, "@You:\n\n**Tool Result:** `b1` (pending)\n\n```\n```\n\n**Tool Result:** `b2` (pending)\n\n```\n```\n")
	if strings.Contains(s.c.Doc(uri).Text, "flemma:tool") {
		t.Errorf("suffix style must not write fence placeholders:\n%s", s.c.Doc(uri).Text)
	}
	s.applyAction(uri, "`b1` (pending)", "Approve bash")
	s.waitText(uri, "**Tool Result:** `b1`\n\n```\nsuffix-a\n```", "**Tool Result:** `b2` (pending)\n\n```\n```")
}

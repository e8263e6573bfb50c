package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// twoBashDoc is two bash calls without results and a final @You:.
func twoBashDoc(c1, c2 string) string {
	return "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n{\"command\":\"" + c1 + "\",\"timeout\":null}\n```\n\n" +
		"**Tool Use:** `bash` (`b2`)\n\n```json\n{\"command\":\"" + c2 + "\",\"timeout\":null}\n```\n\n@You:\n"
}

func actionTitles(s *session, uri, at string) []string {
	var titles []string
	for _, a := range s.codeActions(uri, at) {
		titles = append(titles, a.Title)
	}
	return titles
}

func hasPrefix(titles []string, prefix string) bool {
	for _, t := range titles {
		if strings.HasPrefix(t, prefix) {
			return true
		}
	}
	return false
}

// Approve, Reject and Run now are offered only where they take effect:
// not on denied, rejected or aborted placeholders (audit: Approve on a
// denied block never counted and showed a misleading diagnostic).
func TestNoApprovalActionsOnFinalStatuses(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := "@You:\ngo\n\n@Assistant:\n" +
		"**Tool Use:** `bash` (`t_den`)\n\n```json\n{\"command\":\"touch den\",\"timeout\":null}\n```\n\n" +
		"**Tool Use:** `bash` (`t_rej`)\n\n```json\n{\"command\":\"touch rej\",\"timeout\":null}\n```\n\n" +
		"**Tool Use:** `bash` (`t_abo`)\n\n```json\n{\"command\":\"touch abo\",\"timeout\":null}\n```\n\n" +
		"**Tool Use:** `bash` (`t_pen`)\n\n```json\n{\"command\":\"touch pen\",\"timeout\":null}\n```\n\n" +
		"@You:\n\n" +
		"**Tool Result:** `t_den`\n\n```flemma:tool status=denied\n```\n\n" +
		"**Tool Result:** `t_rej`\n\n```flemma:tool status=rejected\n```\n\n" +
		"**Tool Result:** `t_abo`\n\n```flemma:tool status=aborted\n```\n\n" +
		"**Tool Result:** `t_pen`\n\n```flemma:tool status=pending\n```\n"
	uri := s.open("final.chat", doc)
	s.settle(uri)
	for _, at := range []string{"status=denied", "status=rejected", "status=aborted"} {
		titles := actionTitles(s, uri, at)
		for _, forbidden := range []string{"Approve bash", "Run now", "Reject bash", "Always allow"} {
			if hasPrefix(titles, forbidden) {
				t.Errorf("%q offered at %s: %q", forbidden, at, titles)
			}
		}
		if !hasPrefix(titles, "Approve all 1 pending") {
			t.Errorf("the document-wide action must count only the one pending block: %q", titles)
		}
	}
	titles := actionTitles(s, uri, "status=pending")
	if !hasPrefix(titles, "Approve bash: $ touch pen") || !hasPrefix(titles, "Reject bash") {
		t.Errorf("a pending block offers Approve and Reject: %q", titles)
	}
	if hasPrefix(titles, "Run now") {
		t.Errorf("Run now cannot take effect on a pending block: %q", titles)
	}
}

// "Approve all N pending" approves every pending block with one edit and
// each runs; "Reject all N pending" rejects them all.
func TestApproveAllAndRejectAll(t *testing.T) {
	s := start(t, sessionOptions{})
	uri := s.open("all.chat", twoBashDoc("echo all-a", "echo all-b"))
	s.advance(uri)
	s.waitText(uri, "`b2`\n\n```flemma:tool status=pending")
	s.applyAction(uri, "status=pending", "Approve all 2 pending")
	s.waitText(uri, "**Tool Result:** `b1`\n\n```\nall-a\n```", "**Tool Result:** `b2`\n\n```\nall-b\n```")

	s2 := start(t, sessionOptions{})
	u2 := s2.open("none.chat", twoBashDoc("touch no-a", "touch no-b"))
	s2.advance(u2)
	s2.waitText(u2, "`b2`\n\n```flemma:tool status=pending")
	s2.applyAction(u2, "status=pending", "Reject all 2 pending")
	s2.waitText(u2, "`b1` (error)\n\n```\nThis tool has been rejected by the user.\n```", "`b2` (error)\n\n```\nThis tool has been rejected by the user.\n```")
	if exists(filepath.Join(s2.ws, "no-a")) || exists(filepath.Join(s2.ws, "no-b")) {
		t.Error("a rejected call ran")
	}
}

// "Run now" on an approved block runs it (autopilot off, so nothing else would).
func TestRunNowAction(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}})
	uri := s.open("run.chat", strings.Replace(revokeDoc, "touch marker-a", "echo run-now-ok", 1))
	s.settle(uri)
	s.applyAction(uri, "status=pending", "Approve bash")
	s.settle(uri)
	var args map[string]any
	for _, a := range s.codeActions(uri, "status=approved") {
		if a.Title == "Run now" && a.Command != nil {
			args = a.Command.Arguments[0]
		}
	}
	if args == nil {
		t.Fatalf("no Run now on an approved block: %q", actionTitles(s, uri, "status=approved"))
	}
	if strings.Contains(s.c.Doc(uri).Text, "run-now-ok\n```") {
		t.Fatal("with autopilot off nothing runs before Run now")
	}
	if _, err := s.command("chatls.run", args); err != nil {
		t.Fatal(err)
	}
	s.waitText(uri, "**Tool Result:** `toolu_m`\n\n```\nrun-now-ok\n```")
}

// A tool use that reuses an earlier one's ID is answered with its error
// result (SPEC §1) and never runs; the first use is the call, runs as the
// policy says and keeps the first result with the ID. Until advance answers
// it nothing runs (which call the user approved would be ambiguous), and
// chatls's answer is no "Second result" (audit: two placeholders for one
// ID, a "Second result" diagnostic of chatls's own making, an approval
// that never took effect).
func TestReusedIDIsAnsweredWithItsError(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{
		"tools": map[string]any{"autoApprove": []string{"$default", "bash(touch *)"}}}}})
	doc := strings.Replace(twoBashDoc("touch dup-one", "touch dup-two"), "`b2`", "`b1`", 1)
	uri := s.open("dup.chat", doc)
	s.waitDiagnostic(uri, "Duplicate tool use ID `b1`")
	if hasPrefix(actionTitles(s, uri, "touch dup-two"), "Insert approval placeholders") {
		t.Error("Insert approval placeholders cannot take effect on a duplicated ID")
	}
	s.settle(uri)
	if text := s.c.Doc(uri).Text; text != doc || exists(filepath.Join(s.ws, "dup-one")) {
		t.Fatalf("opening edited or ran something:\n%s", text)
	}
	s.advance(uri)
	s.waitText(uri, "(no output)", "already used earlier")
	want := doc + "\n**Tool Result:** `b1`\n\n```\n(no output)\n```\n\n" +
		"**Tool Result:** `b1` (error)\n\n```\nTool use ID b1 is already used earlier in this conversation; the call was not run.\n```\n"
	if text := s.c.Doc(uri).Text; text != want {
		t.Fatalf("document:\n%s\nwant:\n%s", text, want)
	}
	s.settle(uri)
	for _, d := range s.c.Diagnostics(uri) {
		if strings.Contains(d.Message, "Second result") {
			t.Errorf("chatls made a second result: %s", d.Message)
		}
	}
	if !exists(filepath.Join(s.ws, "dup-one")) || exists(filepath.Join(s.ws, "dup-two")) {
		t.Error("the first call must run, the reused ID's never")
	}
	if r := s.advance(uri); r["ready"] != true {
		t.Errorf("the document is not ready to send: %v", r)
	}
}

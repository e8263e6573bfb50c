package surface

import (
	"strings"
	"testing"

	"github.com/chatls/chatls/chatdoc"
)

// Flemma's tests/flemma/migration_spec.lua, describe("tool name
// colon-to-dot migration"), restated for the quick fix `Use Flemma 0.12
// tool names` (Flemma migrates on load; chatls offers the edit, SPEC §1).
func TestFlemmaSpecToolNameMigration(t *testing.T) {
	reg := newFakeRegistry()
	reg.names = append(reg.names, "slack:channels_list", "slack:send_message", "flemma:jobs:status")
	use := func(name, id, input string) []string {
		return []string{"", "**Tool Use:** `" + name + "` (`" + id + "`)", "```json", input, "```"}
	}
	doc := func(uses ...[]string) string {
		ls := []string{"@Assistant:"}
		for _, u := range uses {
			ls = append(ls, u...)
		}
		return lines(ls...)
	}
	migrate := func(t *testing.T, text string) (string, bool) {
		t.Helper()
		d := chatdoc.Parse(text)
		for _, dg := range toolDiagnostics(d, reg) {
			if dg.Code == CodeOldToolName {
				fixes := QuickFixes(d, dg, reg)
				if len(fixes) != 1 || fixes[0].Title != "Use Flemma 0.12 tool names" {
					t.Fatalf("fixes %+v", fixes)
				}
				return chatdoc.ApplyEdits(text, fixes[0].Edits), true
			}
		}
		return text, false
	}
	header := func(text string, line int) string { return strings.Split(text, "\n")[line] }

	t.Run("migrates Tool Use headers from colon to dot separator", func(t *testing.T) {
		got, ok := migrate(t, doc(use("slack:channels_list", "toolu_01", `{ "channel": "general" }`)))
		if !ok || header(got, 2) != "**Tool Use:** `slack.channels_list` (`toolu_01`)" {
			t.Fatalf("%v:\n%s", ok, got)
		}
	})
	t.Run("migrates multi-segment colon names", func(t *testing.T) {
		text := doc(use("flemma:jobs:status", "toolu_02", `{ "job_id": "j1" }`))
		got, ok := migrate(t, text)
		if !ok || header(got, 2) != "**Tool Use:** `flemma.jobs.status` (`toolu_02`)" {
			t.Fatalf("%v:\n%s", ok, got)
		}
		for _, dg := range toolDiagnostics(chatdoc.Parse(text), reg) {
			if dg.Code == CodeOldToolName && dg.Message != "Flemma 0.12 writes this tool `flemma.jobs.status`" {
				t.Errorf("hint %q", dg.Message)
			}
		}
	})
	t.Run("does not modify tool names without colons", func(t *testing.T) {
		text := doc(use("bash", "toolu_03", `{ "command": "ls" }`))
		if got, ok := migrate(t, text); ok || got != text {
			t.Fatalf("%v:\n%s", ok, got)
		}
	})
	t.Run("does not flag dot-separated names as needing migration", func(t *testing.T) {
		reg.names = append(reg.names, "slack.channels_list")
		if _, ok := migrate(t, doc(use("slack.channels_list", "toolu_01", "{}"))); ok {
			t.Fatal("a dotted name was offered the migration")
		}
	})
	t.Run("handles mixed old and new format in same buffer", func(t *testing.T) {
		got, ok := migrate(t, doc(use("slack:send_message", "toolu_01", "{}"), use("bash", "toolu_02", "{}")))
		if !ok || header(got, 2) != "**Tool Use:** `slack.send_message` (`toolu_01`)" || header(got, 7) != "**Tool Use:** `bash` (`toolu_02`)" {
			t.Fatalf("%v:\n%s", ok, got)
		}
	})
}

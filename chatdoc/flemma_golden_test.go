package chatdoc

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden documents for the shapes of SPEC §1 "Flemma 0.12–0.14", written
// as Flemma writes them (testdata/flemma/*.chat; provider's
// TestFlemmaShapesRequestBodies sends the same files). Each one is read
// (the parse matches NN.golden, reviewed against Flemma's sources), and
// written back byte-identical through every path chatls writes with:
// printing, an incremental reparse, rewriting each finished result with
// its own content, approving a placeholder and taking it back, and
// delivering its last Job Result again.

func flemmaTexts(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("testdata/flemma/*.chat")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Flemma documents: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".chat")] = string(b)
	}
	return out
}

// dumpFlemma is dump plus what the 0.12–0.14 shapes add: the header gap
// writers use, result metadata, harness keys, Job Results, file
// reference options.
func dumpFlemma(d *Document) string {
	var b strings.Builder
	b.WriteString(dump(d))
	fmt.Fprintf(&b, "--- Flemma 0.12–0.14\nheaderGap %q\n", d.HeaderGap())
	rng := func(s Span) string {
		r := d.Range(s, UTF16)
		return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
	}
	for i, m := range d.Messages() {
		for _, u := range m.ToolUses {
			if !u.Valid() {
				continue
			}
			if u.Background() || u.SaveTo() != "" || u.ToolInputText() != u.RawInput {
				fmt.Fprintf(&b, "message %d tool use %q background=%v saveTo=%q tool input %s\n", i, u.ID, u.Background(), u.SaveTo(), u.ToolInputText())
			}
		}
		for _, r := range m.ToolResults {
			if r.Meta() != "" || r.Job() != "" {
				fmt.Fprintf(&b, "message %d tool result %q status=%q meta %q job %q\n", i, r.ID, r.Status, r.Meta(), r.Job())
			}
		}
		for _, j := range d.JobResultsIn(m) {
			fmt.Fprintf(&b, "message %d job result %s job %q error=%v content %q\n", i, rng(j.Span), j.Job, j.IsError, j.Content)
		}
		for _, f := range m.FileRefs() {
			if len(f.Options) > 0 {
				fmt.Fprintf(&b, "message %d fileref %q mime %q options %v\n", i, f.Path, f.MIME, f.Options)
			}
		}
	}
	return b.String()
}

func TestFlemmaGolden(t *testing.T) {
	for name, text := range flemmaTexts(t) {
		t.Run(name, func(t *testing.T) {
			d := assertPrintsBack(t, text)
			js, err := ParseJSON(d, d.Diagnostics())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("flemma", name+".golden"), dumpFlemma(d)+"--- chatls parse --json\n"+string(js)+"\n")
		})
	}
}

func TestFlemmaWritesBackByteIdentical(t *testing.T) {
	for name, text := range flemmaTexts(t) {
		t.Run(name, func(t *testing.T) {
			d := assertPrintsBack(t, text)
			want := dumpFlemma(d)
			// An incremental reparse of each message, replaced by itself.
			for i, m := range d.Messages() {
				d2 := d.Replace(m.Span, d.Slice(m.Span.Start, m.Span.End))
				if d2.Text() != text || dumpFlemma(d2) != want {
					t.Errorf("message %d replaced by itself reads differently", i)
				}
			}
			for _, r := range d.ToolResults() {
				switch {
				case !r.IsPlaceholder():
					// A finished result rewritten with its own content (how
					// a lost job's header is rewritten) is written as
					// Flemma wrote it: header, metadata, gap, fence.
					edits, err := ReplaceWithResult(d, r.ID, r.Content, r.Status == StatusError)
					if err != nil {
						t.Fatal(err)
					}
					if got := ApplyEdits(text, edits); got != text {
						t.Errorf("result %s rewritten with its content:\n%s", r.ID, got)
					}
				case r.Status == StatusPending:
					// Approving, then taking the approval back.
					edits, err := SetStatus(d, r.ID, StatusApproved)
					if err != nil {
						t.Fatal(err)
					}
					approved := Parse(ApplyEdits(text, edits))
					if got := approved.ToolResult(r.ID); got == nil || got.Status != StatusApproved || got.Dialect != r.Dialect {
						t.Fatalf("approved %s reads %+v", r.ID, got)
					}
					edits, err = SetStatus(approved, r.ID, StatusPending)
					if err != nil {
						t.Fatal(err)
					}
					if got := ApplyEdits(approved.Text(), edits); got != text {
						t.Errorf("placeholder %s approved and taken back:\n%s", r.ID, got)
					}
				}
			}
			// Each answer, streamed in again (its text without the blank
			// lines before a block, its calls), is written as it is.
			for i := 0; i+1 < d.MessageCount(); i++ {
				m, next := d.Message(i), d.Message(i+1)
				if m.Role != "Assistant" || next.Role != "You" || len(m.Thinking()) > 0 || m.Abort() != nil || !allValid(m.ToolUses) {
					continue
				}
				r := &Response{SpacedHeaders: d.HeaderGap() != ""}
				got := r.Start(d.Slice(max(0, m.Span.Start-2), m.Span.Start))
				pos := d.lineAfter(m.MarkerSpan.End)
				for _, u := range m.ToolUses {
					got += r.Text(strings.TrimRight(d.Slice(pos, u.Span.Start), "\n"))
					got += r.ToolUse(u.Name, u.ID, u.RawInput)
					pos = u.Span.End
				}
				got += r.Text(strings.TrimRight(d.Slice(pos, m.Span.End), "\n"))
				got += r.End("")
				want := d.Slice(m.Span.Start, next.MarkerSpan.End) + "\n\n"
				if line, ok := escapedByChatls[name]; ok {
					// Flemma writes the model's text as it comes; chatls
					// writes a line that would read as structure with one
					// leading space (SPEC §1, docs/format.md).
					want = strings.Replace(want, "\n"+line, "\n "+line, 1)
				}
				if got != want {
					t.Errorf("message %d streamed in again:\n%q\nwant\n%q", i, got, want)
				}
			}
			// The last Job Result of the last message, taken out and
			// delivered again, is written where and as Flemma put it.
			if n := d.MessageCount(); n > 0 {
				if jobs := d.JobResultsIn(d.Message(n - 1)); len(jobs) > 0 {
					j := jobs[len(jobs)-1]
					start := j.Span.Start - len(d.Newline) // the blank line before it
					if d.Slice(start-len(d.Newline), j.Span.Start) != d.Newline+d.Newline {
						t.Fatalf("job result %s has no blank line before it", j.Job)
					}
					without := text[:start] + text[j.Span.End:]
					edits := AddJobResult(Parse(without), j.Job, j.Content, j.IsError)
					if got := ApplyEdits(without, edits); got != text {
						t.Errorf("job result %s delivered again:\n%s", j.Job, got)
					}
				}
			}
		})
	}
}

// escapedByChatls are the documents whose answers hold a line chatls
// escapes when it streams it in, and that line's start.
var escapedByChatls = map[string]string{"13-job-result-lines-elsewhere": "**Job Result:** `job_k7x2m`"}

func allValid(uses []*ToolUse) bool {
	for _, u := range uses {
		if !u.Valid() {
			return false
		}
	}
	return true
}

// The reviewed facts each golden holds, so a golden rewritten with
// -update cannot quietly lose them.
func TestFlemmaGoldenFacts(t *testing.T) {
	docs := map[string]*Document{}
	for name, text := range flemmaTexts(t) {
		docs[name] = Parse(text)
	}
	diagCodes := func(d *Document) []string {
		var out []string
		for _, dg := range d.Diagnostics() {
			out = append(out, dg.Code+":"+dg.ToolID)
		}
		return out
	}
	t.Run("dotted names", func(t *testing.T) {
		d := docs["01-dotted-names"]
		if u := d.ToolUse("toolu_01SlackList"); u == nil || u.Name != "slack.channels_list" || !u.Valid() {
			t.Fatalf("%+v", u)
		}
		if u := d.ToolUse("toolu_02JobStatus"); u == nil || u.Name != "flemma.jobs.status" || u.Input()["job_id"] != "job_k7x2m" {
			t.Fatalf("%+v", u)
		}
		if len(d.Diagnostics()) != 0 || d.HeaderGap() != "" {
			t.Fatalf("diagnostics %v gap %q", diagCodes(d), d.HeaderGap())
		}
	})
	t.Run("colon names", func(t *testing.T) {
		d := docs["02-colon-names"]
		if u := d.ToolUse("toolu_01SlackList"); u == nil || u.Name != "slack:channels_list" {
			t.Fatalf("%+v", u)
		}
		if d.HeaderGap() != "\n" {
			t.Fatalf("gap %q", d.HeaderGap())
		}
	})
	t.Run("background jobs", func(t *testing.T) {
		d := docs["03-background-job"]
		for id, job := range map[string]string{"toolu_01Background": "job_k7x2m", "toolu_02Lint": "job_9pfa3"} {
			r := d.ToolResult(id)
			if r == nil || r.Status != StatusDone || r.IsPlaceholder() || r.Job() != job || !d.ToolUse(id).Background() {
				t.Fatalf("%s: %+v", id, r)
			}
		}
		jobs := d.JobResults()
		if len(jobs) != 2 || jobs[0].Job != "job_k7x2m" || jobs[0].IsError || jobs[0].Content != "ok  \texample.com/app\t12.4s" ||
			jobs[1].Job != "job_9pfa3" || !jobs[1].IsError || !strings.HasSuffix(jobs[1].Content, "Command exited with code 1") {
			t.Fatalf("%+v", jobs)
		}
		if len(d.Diagnostics()) != 0 {
			t.Fatal(diagCodes(d))
		}
	})
	t.Run("lost job", func(t *testing.T) {
		d := docs["04-lost-job"]
		if r := d.ToolResult("toolu_01Release"); r.Status != StatusError || r.Job() != "job_lost1" {
			t.Fatalf("%+v", r)
		}
		if j := d.JobResult("job_lost1"); j == nil || !j.IsError || j.Content != JobLost {
			t.Fatalf("%+v", j)
		}
	})
	t.Run("harness keys", func(t *testing.T) {
		d := docs["05-harness-keys"]
		for _, c := range []struct {
			id, saveTo, input string
			bg                bool
		}{
			{"toolu_01SaveTo", "deps.txt", `{"command":"go list -m all","timeout":null}`, false},
			{"toolu_02Bench", "bench.txt", `{"command":"go test -bench . ./...","timeout":null}`, true},
			{"toolu_03Read", "", `{"limit":null,"offset":null,"path":"go.mod"}`, false},
		} {
			u := d.ToolUse(c.id)
			if u.SaveTo() != c.saveTo || u.Background() != c.bg || u.ToolInputText() != c.input {
				t.Errorf("%s: saveTo %q bg %v input %s", c.id, u.SaveTo(), u.Background(), u.ToolInputText())
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(u.ToolInputText()), &in); err != nil || in[KeyBackground] != nil || in[KeySaveTo] != nil {
				t.Errorf("%s: harness keys reach the tool: %v %v", c.id, in, err)
			}
		}
	})
	t.Run("result store references are result text", func(t *testing.T) {
		d := docs["06-result-store"]
		if r := d.ToolResult("toolu_01Log"); r.Status != StatusDone || !strings.HasSuffix(r.Content, "Full output: /home/me/project/.flemma/06-result-store.chat/tool_bash_toolu_01Log.txt]") {
			t.Fatalf("%+v", r)
		}
		if len(d.Diagnostics()) != 0 {
			t.Fatal(diagCodes(d))
		}
	})
	t.Run("compact and spaced headers read the same", func(t *testing.T) {
		c, s := docs["07-compact-headers"], docs["08-spaced-headers"]
		if c.HeaderGap() != "" || s.HeaderGap() != "\n" {
			t.Fatalf("gaps %q %q", c.HeaderGap(), s.HeaderGap())
		}
		for _, d := range []*Document{c, s} {
			if r := d.ToolResult("toolu_01Clean"); r.Status != StatusPending || r.Dialect != DialectSuffix {
				t.Fatalf("%+v", r)
			}
			if r := d.ToolResult("toolu_02List"); r.Status != StatusDone || r.Content != "build/\ngo.mod\nmain.go" {
				t.Fatalf("%+v", r)
			}
			if d.ToolUse("toolu_01Clean").RawInput != `{"command":"rm -rf build","timeout":null}` {
				t.Fatal(d.ToolUse("toolu_01Clean").RawInput)
			}
		}
	})
	t.Run("malformed JSON then a valid call", func(t *testing.T) {
		d := docs["09-malformed-then-valid"]
		if u := d.ToolUse("toolu_01Broken"); u == nil || u.Valid() {
			t.Fatalf("%+v", u)
		}
		if u := d.ToolUse("toolu_02Valid"); u == nil || !u.Valid() || u.Input()["path"] != "README.md" {
			t.Fatalf("%+v", u)
		}
		if got := strings.Join(diagCodes(d), ","); got != CodeToolInputInvalidJSON+":toolu_01Broken" {
			t.Fatalf("diagnostics %s", got)
		}
	})
	t.Run("unterminated thinking", func(t *testing.T) {
		d := docs["10-unterminated-thinking"]
		if len(d.ToolUses()) != 0 || d.MessageCount() != 3 || d.Message(2).Role != "You" {
			t.Fatalf("uses %v, %d messages", d.ToolUses(), d.MessageCount())
		}
		th := d.Message(1).Thinking()
		if len(th) != 1 || d.ThinkingClosed(th[0]) || th[0].Span.End != d.Message(1).Span.End {
			t.Fatalf("%+v", th)
		}
	})
	t.Run("model string and file reference options", func(t *testing.T) {
		d := docs["11-model-string-file-refs"]
		if d.Frontmatter == nil || d.Frontmatter.Language != "lua" {
			t.Fatalf("%+v", d.Frontmatter)
		}
		refs := d.Message(0).FileRefs()
		if len(refs) != 2 || refs[0].Path != "./notes.txt" || refs[0].MIME != "text/plain" ||
			fmt.Sprint(refs[0].Options) != fmt.Sprint([]KV{{"type", "text/plain"}, {"title", "Notes; draft 2"}}) ||
			refs[1].Path != "./pixel.png" || refs[1].MIME != "image/png" {
			t.Fatalf("%+v", refs)
		}
	})
	t.Run("a Job Result line elsewhere is text", func(t *testing.T) {
		d := docs["13-job-result-lines-elsewhere"]
		if jobs := d.JobResults(); len(jobs) != 0 || d.MessageCount() != 3 || len(d.Diagnostics()) != 0 {
			t.Fatalf("jobs %+v, %d messages, %v", jobs, d.MessageCount(), diagCodes(d))
		}
	})
	t.Run("escaped structure is text", func(t *testing.T) {
		d := docs["14-escaped-structure"]
		if d.MessageCount() != 3 || len(d.ToolUses()) != 0 || len(d.ToolResults()) != 0 || len(d.Diagnostics()) != 0 {
			t.Fatalf("%d messages, uses %v, results %v, %v", d.MessageCount(), d.ToolUses(), d.ToolResults(), diagCodes(d))
		}
	})
	t.Run("orphan in an earlier turn", func(t *testing.T) {
		d := docs["12-orphan-earlier-turn"]
		if d.ToolUse("toolu_02B") == nil || d.ToolResult("toolu_02B") != nil || d.ToolResult("toolu_01A") == nil {
			t.Fatal("shape")
		}
	})
}

package chatdoc

import (
	"encoding/json"
	"strings"
	"testing"
)

// Job results are read from @You: messages only, compact or spaced, and
// written where Flemma puts them: after the message's results, before the
// user's text, or in a new @You:.
func TestJobResults(t *testing.T) {
	const call = "@You:\nrun it\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n{\"command\":\"make\",\"flemma.background\":true}\n```\n\n"
	cases := []struct {
		name, doc  string
		job        string
		out        string
		isError    bool
		wantAdded  string
		wantParsed []JobResult
	}{
		{name: "after the results, before the user's text",
			doc: call + "@You:\n\n**Tool Result:** `b1` (job=job_1)\n\n```\nRunning in background as job_1.\n```\n\nwhat now?\n",
			job: "job_1", out: "built",
			wantAdded: call + "@You:\n\n**Tool Result:** `b1` (job=job_1)\n\n```\nRunning in background as job_1.\n```\n\n**Job Result:** `job_1`\n\n```\nbuilt\n```\n\nwhat now?\n"},
		{name: "a new @You: after an answer",
			doc: call + "@You:\n\n**Tool Result:** `b1` (job=job_1)\n\n```\nRunning in background as job_1.\n```\n\n@Assistant:\nIt runs.\n",
			job: "job_1", out: "failed", isError: true,
			wantAdded: call + "@You:\n\n**Tool Result:** `b1` (job=job_1)\n\n```\nRunning in background as job_1.\n```\n\n@Assistant:\nIt runs.\n\n@You:\n\n**Job Result:** `job_1` (error)\n\n```\nfailed\n```\n"},
		{name: "compact headers stay compact",
			doc: call + "@You:\n**Tool Result:** `b1` (job=job_1)\n```\nRunning in background as job_1.\n```\n",
			job: "job_1", out: "ok",
			wantAdded: call + "@You:\n**Tool Result:** `b1` (job=job_1)\n```\nRunning in background as job_1.\n```\n\n**Job Result:** `job_1`\n```\nok\n```\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Parse(c.doc)
			got := ApplyEdits(c.doc, AddJobResult(d, c.job, c.out, c.isError))
			if got != c.wantAdded {
				t.Fatalf("added:\n%q\nwant:\n%q", got, c.wantAdded)
			}
			jr := Parse(got).JobResult(c.job)
			if jr == nil || jr.Content != c.out || jr.IsError != c.isError {
				t.Fatalf("read back: %+v", jr)
			}
			if again := Parse(got).JobResults(); len(again) != 1 {
				t.Fatalf("%d job results, want 1", len(again))
			}
		})
	}
	// Elsewhere a Job Result line is text.
	text := "@You:\nhi\n\n@Assistant:\n**Job Result:** `job_9`\n\n```\nx\n```\n\n@You:\n```md\n**Job Result:** `job_8`\n\n```\n"
	if got := Parse(text).JobResults(); len(got) != 0 {
		t.Fatalf("job results outside @You: structure: %+v", got)
	}
}

// A lost job: the header reads (error job=JOB) and its Job Result says so.
func TestLoseJob(t *testing.T) {
	doc := "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n{\"command\":\"sleep 100\",\"flemma.background\":true}\n```\n\n" +
		"@You:\n\n**Tool Result:** `b1` (job=job_1)\n\n```\nRunning in background as job_1.\n```\n"
	edits, err := LoseJob(Parse(doc), "b1", "job_1")
	if err != nil {
		t.Fatal(err)
	}
	got := ApplyEdits(doc, edits)
	want := "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`b1`)\n\n```json\n{\"command\":\"sleep 100\",\"flemma.background\":true}\n```\n\n" +
		"@You:\n\n**Tool Result:** `b1` (error job=job_1)\n\n```\nRunning in background as job_1.\n```\n\n**Job Result:** `job_1` (error)\n\n```\n" + JobLost + "\n```\n"
	if got != want {
		t.Fatalf("got:\n%q\nwant:\n%q", got, want)
	}
	d := Parse(got)
	if r := d.ToolResult("b1"); r == nil || r.Status != StatusError || r.Meta() != "job=job_1" {
		t.Fatalf("the header does not read as an error with its job: %+v", r)
	}
}

// `chatls parse --json` lists a message's job results (and says nothing of
// them where there are none).
func TestJobResultsInParseJSON(t *testing.T) {
	out, err := ParseJSON(Parse("@You:\ngo\n\n@Assistant:\nok\n\n@You:\n\n**Job Result:** `job_1` (error)\n\n```\nfailed\n```\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Messages []struct {
			JobResults []struct {
				Job     string `json:"job"`
				Error   bool   `json:"error"`
				Content string `json:"content"`
			} `json:"jobResults"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Messages) != 3 || len(doc.Messages[0].JobResults) != 0 || len(doc.Messages[2].JobResults) != 1 {
		t.Fatalf("%s", out)
	}
	if j := doc.Messages[2].JobResults[0]; j.Job != "job_1" || !j.Error || j.Content != "failed" {
		t.Fatalf("%+v", j)
	}
	if strings.Count(string(out), "jobResults") != 1 {
		t.Fatalf("jobResults printed where there are none:\n%s", out)
	}
}

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
)

// A background job from a terminal (Flemma 0.12, SPEC §1): the model's
// `flemma.background` call gets its (job=JOB) result at once and the chain
// goes on; chatls send then waits for the job. Killed meanwhile (kill -9),
// the job is lost with it, and the next `chatls send FILE` writes the
// recovery as Flemma does before it sends.
func TestCLISendRecoversABackgroundJobLostToAKill(t *testing.T) {
	responses, _ := json.Marshal(map[string]any{"responses": []any{
		map[string]any{"text": "Building.", "toolUses": []any{map[string]any{"id": "bg1", "name": "bash",
			"input": map[string]any{"command": "sleep 120", "timeout": nil, "flemma.background": true}}}},
		map[string]any{"text": "It builds in the background."},
		map[string]any{"text": "The build was lost; run it again."},
	}})
	config := scriptConfig(t, string(responses)) + "[tools]\nautoApprove = [\"$default\", \"bash(sleep *)\"]\n"
	dir, state := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "job.chat")
	testfs.Write(t, file, "@You:\nbuild it\n")
	cmd, wait := startCLISend(t, dir, config, state, "job.chat")
	waitFileFor(t, file, "the chain going on while the job runs", func(d []byte) bool {
		return bytes.Contains(d, []byte("(job=job_")) && bytes.Contains(d, []byte("It builds in the background."))
	})
	if err := cmd.Process.Kill(); err != nil { // kill -9 while the job runs
		t.Fatal(err)
	}
	if _, _, stderr := wait(); stderr != "" && !strings.Contains(stderr, "waiting for 1 background job(s)") {
		t.Errorf("while the job ran chatls send said %q", stderr)
	}
	code, _, stderr := func() (int, string, string) {
		_, wait := startCLISend(t, dir, config, state, "job.chat")
		return wait()
	}()
	raw, _ := os.ReadFile(file)
	data := string(raw)
	if code != 0 {
		t.Fatalf("the second send: exit %d, stderr %q\n%s", code, stderr, data)
	}
	for _, want := range []string{"(error job=job_", "` (error)\n```\nJob lost: session ended before completion.\n```", "The build was lost; run it again."} {
		if strings.Count(data, want) != 1 {
			t.Errorf("want %q once in:\n%s", want, data)
		}
	}
	if strings.Index(data, "Job lost") > strings.Index(data, "The build was lost") {
		t.Errorf("the recovery must come before the answer that reads it:\n%s", data)
	}
}

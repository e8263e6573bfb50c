package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/testsshd"
)

// closedPort is a localhost port nothing listens on.
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// `chatls tools --target` lists what a target offers, where each tool
// runs, and probes the target: a real sshd, an unreachable host, a tmux
// target and a name no trusted settings define.
func TestRunToolsTarget(t *testing.T) {
	sshd := testsshd.Start(t)
	t.Chdir(t.TempDir())
	cfg := userConfig(t, fmt.Sprintf(`[targets.build]
type = "ssh"
host = %q
sshConfig = %q
root = "/srv/app"

[targets.down]
type = "ssh"
host = "127.0.0.1"
port = %d

[targets.term]
type = "local"
tmux = true
tmuxSocket = %q
`, sshd.Host, sshd.ConfigFile, closedPort(t), t.TempDir()+"/tmux.sock"))

	out, errOut := runToolsOK(t, "--config", cfg, "--target", "build")
	if !strings.Contains(errOut, "target build: ssh on host ") || !strings.Contains(errOut, "root /srv/app") {
		t.Errorf("the probe must say where the calls go:\n%s", errOut)
	}
	rows := tableRows(out)
	for name, where := range map[string]string{"bash": "build", "read": "build", "grep": "build", "web_fetch": "here", "calculator": "here"} {
		if rows[name] != where {
			t.Errorf("%s runs on %q, want %q\n%s", name, rows[name], where, out)
		}
	}
	for _, name := range []string{"copy", "delete", "definition", "git_status", "capture_pane"} {
		if _, ok := rows[name]; ok {
			t.Errorf("%s must not be offered on an ssh target without tmux:\n%s", name, out)
		}
	}

	// Unreachable: a warning naming ssh's reason, the list still printed.
	out, errOut = runToolsOK(t, "--config", cfg, "--target", "down")
	if !strings.Contains(errOut, "warning: target down is unreachable") || !strings.Contains(errOut, "Connection refused") {
		t.Errorf("an unreachable target must be reported:\n%s", errOut)
	}
	if tableRows(out)["bash"] != "down" {
		t.Errorf("the list must still be printed:\n%s", out)
	}

	// tmux: bash with wait, and the tmux tools, as JSON.
	if _, err := exec.LookPath("tmux"); err == nil {
		out, errOut = runToolsOK(t, "--config", cfg, "--target", "term", "--json")
		var list []toolJSON
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatal(err)
		}
		runsOn := map[string]string{}
		for _, d := range list {
			runsOn[d.Name] = d.RunsOn
			if d.Name == "bash" && !strings.Contains(string(d.Schema), `"wait"`) {
				t.Errorf("bash on a tmux target takes wait: %s", d.Schema)
			}
		}
		for name, where := range map[string]string{"bash": "term (tmux)", "capture_pane": "term (tmux)", "send_keys": "term (tmux)", "copy": "here", "read": "here"} {
			if runsOn[name] != where {
				t.Errorf("%s runs on %q, want %q", name, runsOn[name], where)
			}
		}
		if !strings.Contains(errOut, "target term: local on host ") || !strings.Contains(errOut, "tmux session chatls") {
			t.Errorf("probe of the tmux target:\n%s", errOut)
		}
	}

	var stdout, stderr bytes.Buffer
	if code := runTools([]string{"--config", cfg, "--target", "nowhere"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "target nowhere is not defined in your trusted settings") {
		t.Errorf("an undefined target: exit %d, %s", code, stderr.String())
	}
}

// tableRows maps each tool of a `chatls tools --target` table to its
// RUNS ON column.
func tableRows(out string) map[string]string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	header := lines[0]
	col := strings.Index(header, "RUNS ON")
	end := strings.Index(header, "PARAMETERS")
	rows := map[string]string{}
	for _, l := range lines[1:] {
		if len(l) < end {
			continue
		}
		rows[strings.Fields(l)[0]] = strings.TrimSpace(l[col:end])
	}
	return rows
}

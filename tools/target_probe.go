package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// probeScript prints the machine's host name, and "no tmux" when $1 asks
// for tmux and there is none.
const probeScript = `uname -n 2>/dev/null || hostname
if [ -n "$1" ] && ! command -v tmux >/dev/null 2>&1; then echo "no tmux"; fi`

// ProbeTarget checks that t can be reached and has tmux when it should,
// without running any tool; the text says where the calls go.
func ProbeTarget(ctx context.Context, t *TargetEnv) (string, error) {
	if t.Problem != "" {
		return "", errors.New(t.Problem)
	}
	m := t.Machine
	if m == nil && t.Tmux != nil {
		m = t.Tmux.M
	}
	if m == nil {
		return "this machine", nil
	}
	wantTmux := ""
	if t.Tmux != nil {
		wantTmux = "1"
	}
	var out strings.Builder
	exit, err := m.Exec(ctx, probeScript, []string{wantTmux}, nil, &out)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if exit.Code != 0 {
		return "", fmt.Errorf("the probe failed there (exit %d): %s", exit.Code, strings.Join(lines, " "))
	}
	where := fmt.Sprintf("%s on host %s", m.Kind(), lines[0])
	if t.Root != "" {
		where += ", root " + t.Root
	}
	if t.Tmux != nil {
		if slices.Contains(lines, "no tmux") {
			return where, fmt.Errorf("target %s has tmux = true but tmux is not installed there: its bash calls will fail", t.Name)
		}
		where += ", tmux session " + t.Tmux.SessionName()
	}
	return where, nil
}

package builtin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/tooltest"
)

func TestRunnerHugeArguments(t *testing.T) {
	env := testEnv(t)
	huge := strings.Repeat("x", 5<<20)
	res := run(t, env, "write", map[string]any{"path": "big.txt", "content": huge})
	wantText(t, res, "Successfully wrote 5242880 bytes to big.txt")
	res = run(t, env, "calculator", map[string]any{"expression": strings.Repeat("(", 20000)})
	if !res.IsError || !strings.Contains(res.Text, "expression: longer than 10000 characters") {
		t.Errorf("calculator: %.200s", res.Text)
	}
	res = run(t, env, "bash", map[string]any{"command": "echo " + strings.Repeat("y", 100000) + " | wc -c"})
	wantText(t, res, "100001")
	input, _ := json.Marshal(map[string]any{"path": strings.Repeat("a/", 100000)})
	res = run(t, env, "read", tooltest.Decode(t, string(input)))
	if !res.IsError {
		t.Errorf("read of a 200 KB path: %.200s", res.Text)
	}
}

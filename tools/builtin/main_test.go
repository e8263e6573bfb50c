package builtin

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/chatls/chatls/tools"
)

// miniServerEnv makes the test binary act as a small chatls: it runs one
// sandboxed bash call with background jobs and waits to be killed
// (TestSandboxedBashDiesWithTheServer; internal/procsup has the same
// without the sandbox).
const miniServerEnv = "CHATLS_TEST_MINI_SERVER"

func TestMain(m *testing.M) {
	if marker := os.Getenv(miniServerEnv); marker != "" {
		os.Exit(miniServer(marker))
	}
	os.Exit(m.Run())
}

// miniServer runs `(exec -a MARKER sleep 100) & exec -a MARKER sleep 100`
// through a Runner, in the sandbox.
func miniServer(marker string) int {
	dir, err := os.MkdirTemp("", "chatls-mini-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	env := tools.Env{Dir: dir, TempDir: dir, Writable: []string{dir}, BashTimeout: 60, Sandbox: tools.SandboxConfig{Enabled: true}}
	r := tools.NewRunner(tools.NewRegistry(Tools(Options{})))
	cmd := fmt.Sprintf("(exec -a %[1]s sleep 100) & exec -a %[1]s sleep 100", marker)
	res := r.Run(context.Background(), tools.Call{ID: "mini", Name: "bash", Input: map[string]any{"command": cmd}}, env)
	// Only reached if the call ends before the server is killed.
	fmt.Fprintln(os.Stderr, "mini server: the call ended:", res.Text)
	return 3
}

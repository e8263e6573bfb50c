package approval

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/config"
)

func TestRemoteTargetDecidesByItsOwnLists(t *testing.T) {
	local := t.TempDir()
	// A local symlink on the remote root's path must not count: the
	// target's filesystem is elsewhere.
	os.Symlink("/srv/app", filepath.Join(local, "app-link"))
	user := config.Settings{}
	user.Tools.AutoApprove = []string{"bash(date)", "$readonly"} // this machine's: not the target's
	user.Tools.Deny = []string{"bash(rm *)"}
	tp := &TargetPolicy{Name: "build", Root: "/srv/app", AutoApprove: []string{"read", "bash(make test)"}, Deny: []string{"bash(make deploy)"}}
	e, err := NewEngine(Sources{User: user, UserFile: "user.toml", Home: local, TempDir: local, Target: tp,
		Workspace: config.Settings{Tools: config.Tools{AutoApprove: []string{"bash(*)"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectDecisions(t, e, Call{}, []decisionCase{
		{"read", map[string]any{"path": "src/main.go"}, Approve},
		{"bash", map[string]any{"command": "make test"}, Approve},
		{"bash", map[string]any{"command": "date"}, RequireApproval}, // the user's list is for this machine
		{"grep", map[string]any{"pattern": "x"}, RequireApproval},    // no built-in defaults on a target
		{"bash", map[string]any{"command": "ls"}, RequireApproval},   // the workspace approves nothing here
		{"bash", map[string]any{"command": "rm -rf build"}, Deny},    // the global deny list holds
		{"bash", map[string]any{"command": "make deploy"}, Deny},     // and the target's
		{"read", map[string]any{"path": "/root/.ssh/id_ed25519"}, RequireApproval},
	})
}

type decisionCase struct {
	tool  string
	input map[string]any
	want  Decision
}

// expectDecisions decides each case as call with its tool and input.
func expectDecisions(t *testing.T, e *Engine, call Call, cases []decisionCase) {
	t.Helper()
	for _, c := range cases {
		call.Tool, call.Input = c.tool, c.input
		if v := e.Decide(context.Background(), call); v.Decision != c.want {
			t.Errorf("%s %v: %s, want %s\n%s", c.tool, c.input, v.Decision, c.want, v.Format())
		}
	}
}

// The server asks with the local document's path and workspace: on a
// target neither counts (only the target's root does), and a built-in
// without side effects is not approved without a rule of the target's.
func TestTargetIgnoresTheLocalDocumentsDirectories(t *testing.T) {
	local := t.TempDir()
	tp := &TargetPolicy{Name: "build", Root: "/srv/app", AutoApprove: []string{"$readonly", "bash(make test)"}}
	e, err := NewEngine(Sources{UserFile: "user.toml", Home: local, TempDir: local, Target: tp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	expectDecisions(t, e, Call{DocPath: filepath.Join(local, "a.chat"), WorkspaceRoot: local}, []decisionCase{
		{"read", map[string]any{"path": "src/main.go"}, Approve},
		{"read", map[string]any{"path": "/srv/app/README.md"}, Approve},
		{"read", map[string]any{"path": filepath.Join(local, "notes.txt")}, RequireApproval}, // the local workspace is not there
		{"read", map[string]any{"path": "/tmp/x"}, RequireApproval},                          // nor this machine's temp
		{"bash", map[string]any{"command": "pwd"}, RequireApproval},
		{"bash", map[string]any{"command": "true"}, RequireApproval},
		{"bash", map[string]any{"command": "cd src && make test"}, Approve},
		{"bash", map[string]any{"command": "cd /etc && make test"}, RequireApproval},
	})
}

func TestLexicalPathsOnATarget(t *testing.T) {
	for p, want := range map[string]string{
		"src/a.go":      "/srv/app/src/a.go",
		"/etc/hosts":    "/etc/hosts",
		"link/../x":     "",
		"~/.ssh/config": "",
		"./a//b/":       "/srv/app/a/b",
	} {
		if got := lexicalPath(p, "/srv/app"); got != want {
			t.Errorf("lexicalPath(%q) = %q, want %q", p, got, want)
		}
	}
}

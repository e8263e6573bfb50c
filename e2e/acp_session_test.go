package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// The agent's sessions across chatls processes and branches (SPEC §12):
// the scripted agent keeps its sessions in ACP_TEST_STATE, so a later
// agent process can load them, and writes each session request to
// ACP_TEST_LOG as "METHOD SESSION PID".

// agentLog is what the scripted agent recorded: one [method, session]
// pair for each session/new, session/load and session/prompt.
func agentLog(t *testing.T, file string) [][2]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out [][2]string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	return out
}

// agentSessionEnv is the scripted agent's environment for these tests:
// sessions kept in a directory, session requests logged.
func agentSessionEnv(t *testing.T, extra map[string]string) (env map[string]string, log string) {
	dir := t.TempDir()
	log = filepath.Join(dir, "requests.log")
	env = map[string]string{"ACP_TEST_STATE": dir, "ACP_TEST_LOG": log}
	for k, v := range extra {
		env[k] = v
	}
	return env, log
}

// A turn held by one chatls process, which then exits; a second process
// on the same file sends the next turn: chatls remembered the session by
// the document's path and loads it (session/load with that ID), so the
// agent answers from the first turn's history. An agent that cannot load
// sessions gets session/new instead, and the user is told that the new
// session does not know the conversation above.
func TestAgentSessionLoadAcrossProcesses(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		load bool
	}{
		{"load", nil, true},
		{"no load", map[string]string{"ACP_TEST_NO_LOAD": "1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, log := agentSessionEnv(t, tc.env)
			cfg := agentConfig(t, env, "")
			ws, state := t.TempDir(), t.TempDir()

			s := start(t, sessionOptions{ws: ws, state: state, userConfig: cfg})
			uri := s.open("a.chat", "@You:\nremember the blue door\n")
			s.send(uri)
			s.waitText(uri, "@Assistant:\nNoted.\n")
			waitDone(t, s, uri)
			text := s.c.Doc(uri).Text
			first := agentLog(t, log)
			if len(first) != 2 || first[0][0] != "session/new" || first[1] != [2]string{"session/prompt", first[0][1]} {
				t.Fatalf("the first process's agent requests: %q", first)
			}
			id := first[0][1]
			if err := s.c.Shutdown(s.ctx); err != nil {
				t.Fatalf("the first chatls did not exit: %v", err)
			}

			// The second process opens the file as the first left it.
			s2 := start(t, sessionOptions{ws: ws, state: state, userConfig: cfg})
			uri2 := s2.open("a.chat", text+"recall\n")
			s2.send(uri2)
			waitDone(t, s2, uri2)
			got := agentLog(t, log)[2:]
			answer := strings.TrimPrefix(s2.c.Doc(uri2).Text, text+"recall\n")
			if tc.load {
				want := [][2]string{{"session/load", id}, {"session/prompt", id}}
				if !slices.Equal(got, want) {
					t.Errorf("the second process's agent requests: %q, want %q", got, want)
				}
				if !strings.Contains(answer, "You said: remember the blue door") {
					t.Errorf("the loaded session does not know the first turn:\n%s", answer)
				}
				if m := s2.messages("cannot load"); len(m) > 0 {
					t.Errorf("the user was told the load failed: %q", m)
				}
				return
			}
			if len(got) != 2 || got[0][0] != "session/new" || got[0][1] == id || got[1] != [2]string{"session/prompt", got[0][1]} {
				t.Errorf("the second process's agent requests: %q, want a session/new (not %s) and its prompt", got, id)
			}
			if !strings.Contains(answer, "You said:") || strings.Contains(answer, "door") {
				t.Errorf("the new session answers from a history it cannot have:\n%s", answer)
			}
			s2.waitMessage(1, "cannot load earlier sessions", "a new session does not know the conversation above")
		})
	}
}

// "Branch conversation here" on an agent's document makes a new document
// whose first send starts a new agent session (session/new), never the
// original document's: the branch's path has no remembered session, also
// when an earlier branch of the same name talked to the agent and was
// deleted.
func TestAgentBranchStartsANewSession(t *testing.T) {
	env, log := agentSessionEnv(t, nil)
	s := start(t, sessionOptions{userConfig: agentConfig(t, env, "")})
	uri := s.open("a.chat", "@You:\nremember the blue door\n")
	s.send(uri)
	s.waitText(uri, "@Assistant:\nNoted.\n")
	waitDone(t, s, uri)
	original := agentLog(t, log)[0][1]

	// branch applies the action at the last @You: as the user picks it,
	// and opens the new document with the next question.
	branch := func(question string) (string, string) {
		t.Helper()
		text := s.c.Doc(uri).Text
		at := strings.LastIndex(text, "@You:")
		actions := s.codeActionsAt(uri, endPosition(text[:at]))
		i := slices.IndexFunc(actions, func(a codeAction) bool { return a.Title == "Branch conversation here" })
		if i < 0 || actions[i].Command == nil {
			t.Fatalf("no Branch conversation here at the last @You:: %+v", actions)
		}
		out, err := s.command(actions[i].Command.Command, actions[i].Command.Arguments[0])
		if err != nil {
			t.Fatalf("%s: %v", actions[i].Command.Command, err)
		}
		file, _ := out["file"].(string)
		if file != filepath.Join(s.ws, "a.branch-1.chat") {
			t.Fatalf("the branch is %q", file)
		}
		data, err := os.ReadFile(file)
		if err != nil || string(data) != text[:at] {
			t.Fatalf("the branch holds %q (%v), want the messages before the last @You:", data, err)
		}
		b := lspclient.PathURI(file)
		if err := s.c.Open(s.ctx, b, string(data)+"@You:\n"+question+"\n"); err != nil {
			t.Fatal(err)
		}
		s.send(b)
		waitDone(t, s, b)
		return b, file
	}
	newSession := func(what string, before int) string {
		t.Helper()
		got := agentLog(t, log)[before:]
		if len(got) != 2 || got[0][0] != "session/new" || got[0][1] == original || got[1] != [2]string{"session/prompt", got[0][1]} {
			t.Fatalf("%s: the agent's requests %q, want a session/new (not %s) and its prompt", what, got, original)
		}
		return got[0][1]
	}

	n := len(agentLog(t, log))
	b, file := branch("remember the red door")
	first := newSession("the branch's first send", n)

	// The branch is closed and deleted; a new branch gets its name again.
	if err := s.c.Notify(s.ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": b}}); err != nil {
		t.Fatal(err)
	}
	s.settle(uri)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	n = len(agentLog(t, log))
	b, _ = branch("recall")
	if again := newSession("the second branch of that name", n); again == first {
		t.Errorf("the second branch went on in the deleted branch's session %s", first)
	}
	if text := s.c.Doc(b).Text; !strings.Contains(text, "You said:") || strings.Contains(text[strings.LastIndex(text, "recall"):], "door") {
		t.Errorf("the new branch's session knows an earlier conversation:\n%s", text)
	}

	// The original document goes on in its own session.
	n = len(agentLog(t, log))
	askAgent(t, s, uri, "recall\n")
	s.waitText(uri, "You said: remember the blue door")
	waitDone(t, s, uri)
	if got := agentLog(t, log)[n:]; !slices.Equal(got, [][2]string{{"session/prompt", original}}) {
		t.Errorf("the original document's next send: %q, want a prompt in %s", got, original)
	}
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chatls/chatls/internal/lspclient"
)

// noServerEdits fails when the server edited the document: opening only
// analyses (SPEC §2).
func noServerEdits(t *testing.T, s *session) {
	t.Helper()
	for _, e := range s.c.Events() {
		if e.Kind == "applyEdit" {
			t.Fatalf("the server edited the document: %s", e.Label)
		}
	}
}

// Corpus 03: Flemma 0.11 suffixes. ls is approved on open but not by the
// policy: it does not run and shows the diagnostic; bash is pending. The
// server's and the actions' rewrites keep the suffix dialect (and the extra
// token); a result replaces its placeholder in the finished form. Autopilot
// is off so each step can be seen.
func TestCorpus03SuffixDialect(t *testing.T) {
	s := start(t, sessionOptions{Options: lspclient.Options{InitializationOptions: map[string]any{"autopilot": false}}})
	uri := s.open("suffix.chat", corpus(t, "03-suffix-dialect.chat"))
	s.waitDiagnostic(uri, "approved before this session; approve again to run")
	s.waitDiagnostic(uri, "approval pending: bash: $ git status --short  # git state")
	noServerEdits(t, s)

	// advance hands the approval that predates the session back to the user.
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `toolu_ls1` (pending)\n\n```\n```", "**Tool Result:** `toolu_sh2` (status=pending sandbox=false)\n\n```\n```")
	s.applyAction(uri, "`toolu_ls1` (pending)", "Approve ls")
	s.applyAction(uri, "(status=pending sandbox=false)", "Approve bash")
	s.waitText(uri, "**Tool Result:** `toolu_ls1` (approved)\n\n```\n```", "**Tool Result:** `toolu_sh2` (status=approved sandbox=false)\n\n```\n```")
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `toolu_ls1`\n\n```\n", "**Tool Result:** `toolu_sh2` (error)\n\n```\n")
	if text := s.c.Doc(uri).Text; strings.Contains(text, "`toolu_ls1` (") || strings.Contains(text, "status=") {
		t.Errorf("finished results have no status suffix:\n%s", text)
	}
}

// Corpus 04: the pre-0.6 `flemma:pending` fence is pending and approvable.
func TestCorpus04LegacyPending(t *testing.T) {
	s := start(t, sessionOptions{})
	if err := os.WriteFile(filepath.Join(s.ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := s.open("legacy.chat", corpus(t, "04-legacy-pending.chat"))
	s.waitDiagnostic(uri, "approval pending: bash: $ wc -l main.go")
	s.applyAction(uri, "flemma:pending", "Approve bash")
	s.waitText(uri, "**Tool Result:** `toolu_old1`\n\n```\n3 main.go\n```")
}

// Corpus 05: nested fences; both results are finished, nothing to do.
func TestCorpus05NestedFences(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := corpus(t, "05-nested-fences.chat")
	uri := s.open("nested.chat", doc)
	var symbols []struct {
		Name string `json:"name"`
	}
	if err := s.c.Call(s.ctx, "textDocument/documentSymbol", map[string]any{"textDocument": map[string]any{"uri": uri}}, &symbols); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, sym := range symbols {
		role, _, _ := strings.Cut(sym.Name, ":")
		roles = append(roles, role)
	}
	if strings.Join(roles, ",") != "You,Assistant,You,Assistant,You" {
		t.Errorf("messages = %q, want You, Assistant, You, Assistant, You", roles)
	}
	if r := s.advance(uri); r["phase"] != "send" || r["ready"] != true || r["pending"] != float64(0) {
		t.Errorf("both results are finished: advance must report ready, got %v", r)
	}
	s.settle(uri)
	if s.c.Doc(uri).Text != doc {
		t.Error("a finished document must not change")
	}
	noServerEdits(t, s)
}

// Corpus 06: Lua frontmatter narrows always, widens only when trusted.
func TestCorpus06FrontmatterTrust(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		name := map[bool]string{false: "untrusted", true: "trusted"}[trusted]
		t.Run(name, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			os.MkdirAll(ws, 0o755)
			opts := sessionOptions{ws: ws}
			if trusted {
				opts.Options = lspclient.Options{InitializationOptions: map[string]any{"trust": map[string]any{"workspaces": []string{ws, ws + "/**"}}}}
			}
			s := start(t, opts)
			uri := s.open("fm.chat", corpus(t, "06-frontmatter-lua.chat"))
			s.advance(uri)
			grepPending := "**Tool Result:** `toolu_g2`\n\n```flemma:tool status=pending\n```"
			if trusted {
				s.waitText(uri, "**Tool Result:** `toolu_c1`\n\n```\n391\n```", grepPending)
			} else {
				s.waitText(uri, "**Tool Result:** `toolu_c1`\n\n```flemma:tool status=pending\n```", grepPending)
			}
		})
	}
}

// Corpus 08: every kind of error is diagnosed, the server stays up through
// advance, and the document keeps its unclosed last fence untouched.
func TestCorpus08Malformed(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := corpus(t, "08-malformed.chat")
	uri := s.open("malformed.chat", doc)
	for _, want := range []string{
		"Role marker `@You:` must be alone on its line",
		"Failed to parse tool input",
		"Unknown tool `reed`; did you mean `read`?",
		"Duplicate tool use ID `toolu_dup`",
		"Invalid input for `edit`: newText: missing required property",
		"Invalid input for `edit`: oldText: expected string",
		"Tool use requires a fenced code block with JSON input",
		"Tool result `toolu_orphan` has no matching tool use",
		"Tool result fence is not closed",
	} {
		s.waitDiagnostic(uri, want)
	}
	s.advance(uri)
	s.settle(uri)
	if text := s.c.Doc(uri).Text; !strings.HasSuffix(text, "```\nthis fence is never closed\n") {
		t.Errorf("the unclosed fence must stay the end of the document:\n%s", text)
	}
	// Calls that can never run get their error results, no placeholder
	// (SPEC §1); the first use of toolu_dup is the call, the later one is
	// answered with its own error.
	for _, id := range []string{"toolu_bad1", "toolu_nofence", "toolu_orphan"} {
		if strings.Contains(s.c.Doc(uri).Text, "**Tool Result:** `"+id+"`\n\n```flemma:tool") {
			t.Errorf("%s must get no placeholder", id)
		}
	}
	for _, want := range []string{
		"**Tool Result:** `toolu_bad1` (error)\n\n```\nFailed to parse tool input: ",
		"**Tool Result:** `toolu_nofence` (error)\n\n```\nTool use requires a fenced code block with JSON input\n```",
		"**Tool Result:** `toolu_dup` (error)\n\n```\nTool use ID toolu_dup is already used earlier in this conversation; the call was not run.\n```",
	} {
		if !strings.Contains(s.c.Doc(uri).Text, want) {
			t.Errorf("missing %q in\n%s", want, s.c.Doc(uri).Text)
		}
	}
	if err := s.c.Shutdown(s.ctx); err != nil {
		t.Errorf("the server must still be up and exit cleanly: %v", err)
	}
}

// Corpus 10: one tool use (the line inside thinking is not one), answered.
func TestCorpus10Thinking(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := corpus(t, "10-thinking.chat")
	uri := s.open("thinking.chat", doc)
	if r := s.advance(uri); r["phase"] != "send" || r["ready"] != true {
		t.Errorf("exactly one tool use, already answered: advance must report ready, got %v", r)
	}
	s.settle(uri)
	if s.c.Doc(uri).Text != doc {
		t.Error("nothing may change")
	}
	for _, d := range s.c.Diagnostics(uri) {
		if d.Severity <= 2 {
			t.Errorf("unexpected problem: %s", d.Message)
		}
	}
}

// Corpus 15: MCP-style name, Gemini ID, (error) result, a custom role the
// cycle ignores; without an MCP server the MCP tool is unknown.
func TestCorpus15MCPAndCustomRole(t *testing.T) {
	s := start(t, sessionOptions{})
	doc := corpus(t, "15-mcp-and-error.chat")
	uri := s.open("mcp.chat", doc)
	s.waitDiagnostic(uri, "Unknown tool `slack:channels_list`")
	if r := s.advance(uri); r["phase"] != "send" || r["ready"] != true {
		t.Errorf("both calls are answered, the custom role is ignored: advance must report ready, got %v", r)
	}
	s.settle(uri)
	if s.c.Doc(uri).Text != doc {
		t.Error("nothing may change")
	}
	for _, d := range s.c.Diagnostics(uri) {
		if d.Severity == 1 {
			t.Errorf("unexpected error: %s", d.Message)
		}
	}
}

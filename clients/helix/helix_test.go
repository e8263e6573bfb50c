package helix

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// The structs mirror what Helix deserializes (helix-core/src/syntax/config.rs,
// Helix 25.x). LanguageConfiguration is `deny_unknown_fields` there, so a
// misspelled key makes Helix reject the whole file: decoding strictly here
// catches the same mistakes.

type languagesFile struct {
	UseGrammars    any                       `toml:"use-grammars"`
	Grammar        []map[string]any          `toml:"grammar"`
	Language       []language                `toml:"language"`
	LanguageServer map[string]languageServer `toml:"language-server"`
}

type language struct {
	Name                        string         `toml:"name"`
	LanguageID                  string         `toml:"language-id"`
	Scope                       string         `toml:"scope"`
	FileTypes                   []any          `toml:"file-types"`
	Shebangs                    []string       `toml:"shebangs"`
	Roots                       []string       `toml:"roots"`
	CommentToken                any            `toml:"comment-token"`
	CommentTokens               any            `toml:"comment-tokens"`
	BlockCommentTokens          any            `toml:"block-comment-tokens"`
	TextWidth                   int            `toml:"text-width"`
	SoftWrap                    *softWrap      `toml:"soft-wrap"`
	AutoFormat                  bool           `toml:"auto-format"`
	Formatter                   map[string]any `toml:"formatter"`
	PathCompletion              *bool          `toml:"path-completion"`
	WordCompletion              map[string]any `toml:"word-completion"`
	DiagnosticSeverity          string         `toml:"diagnostic-severity"`
	Grammar                     string         `toml:"grammar"`
	InjectionRegex              string         `toml:"injection-regex"`
	LanguageServers             []any          `toml:"language-servers"`
	Indent                      *indent        `toml:"indent"`
	Debugger                    map[string]any `toml:"debugger"`
	AutoPairs                   any            `toml:"auto-pairs"`
	Rulers                      []int          `toml:"rulers"`
	WorkspaceLspRoots           []string       `toml:"workspace-lsp-roots"`
	PersistentDiagnosticSources []string       `toml:"persistent-diagnostic-sources"`
	RainbowBrackets             *bool          `toml:"rainbow-brackets"`
}

type indent struct {
	TabWidth int    `toml:"tab-width"`
	Unit     string `toml:"unit"`
}

type softWrap struct {
	Enable          *bool  `toml:"enable"`
	MaxWrap         int    `toml:"max-wrap"`
	MaxIndentRetain int    `toml:"max-indent-retain"`
	WrapIndicator   string `toml:"wrap-indicator"`
	WrapAtTextWidth *bool  `toml:"wrap-at-text-width"`
}

type languageServer struct {
	Command              string            `toml:"command"`
	Args                 []string          `toml:"args"`
	Environment          map[string]string `toml:"environment"`
	Config               map[string]any    `toml:"config"`
	Timeout              int               `toml:"timeout"`
	RequiredRootPatterns []string          `toml:"required-root-patterns"`
}

type configFile struct {
	Editor struct {
		LSP map[string]any `toml:"lsp"`
	} `toml:"editor"`
	Keys map[string]map[string]any `toml:"keys"`
}

func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			t.Fatalf("%s: keys Helix does not know:\n%s", path, strict.String())
		}
		t.Fatalf("%s: %v", path, err)
	}
}

func TestLanguagesToml(t *testing.T) {
	var f languagesFile
	decodeStrict(t, "languages.toml", &f)

	i := slices.IndexFunc(f.Language, func(l language) bool { return l.Name == "chat" })
	if i < 0 {
		t.Fatal(`no [[language]] named "chat"`)
	}
	lang := f.Language[i]
	if lang.Scope == "" {
		t.Error("scope is required by Helix")
	}
	if !slices.Contains(lang.FileTypes, any("chat")) {
		t.Errorf(`file-types %v lacks "chat"`, lang.FileTypes)
	}
	// The server expects language id "chat" (SPEC §3); Helix sends `language-id` or the name.
	if id := cmpOr(lang.LanguageID, lang.Name); id != "chat" {
		t.Errorf("language id sent to the server is %q, want chat", id)
	}
	if lang.Grammar != "markdown" {
		t.Errorf("grammar = %q; Helix has no chat grammar, markdown is the one to reuse", lang.Grammar)
	}
	if !slices.Contains(lang.LanguageServers, any("chatls")) {
		t.Errorf("language-servers %v lacks chatls", lang.LanguageServers)
	}
	for _, ls := range lang.LanguageServers {
		name, _ := ls.(string)
		if _, ok := f.LanguageServer[name]; !ok {
			t.Errorf("language server %v is not defined under [language-server]", ls)
		}
	}
	srv := f.LanguageServer["chatls"]
	if srv.Command != "chatls" {
		t.Errorf("command = %q, want chatls", srv.Command)
	}
	// config becomes initializationOptions: it must be SPEC §4's shape.
	if tools, ok := srv.Config["tools"].(map[string]any); !ok || tools["autoApprove"] == nil {
		t.Errorf("config = %v, want the settings object {tools = {autoApprove = [...]}}", srv.Config)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Key notation Helix parses (helix-view/src/input.rs): modifiers then one
// character or a named key.
var keyRE = regexp.MustCompile(`^((C|A|S|Meta|Cmd)-)*(.|backspace|space|ret|left|right|up|down|home|end|pageup|pagedown|tab|del|ins|null|esc|minus|F([1-9]|1[0-2]))$`)

// The static and typable commands the snippet may use (helix-term's command lists).
var staticCommands = []string{"code_action", "hover", "goto_next_diag", "goto_prev_diag", "workspace_command_picker"}
var typableCommands = []string{"lsp-workspace-command", "lsp-restart"}

// chatlsCommands are the server's commands (SPEC §3).
// releasedVariables are the %{…} variables of Helix 25.07.1, the newest
// release (helix-view/src/expansion.rs, Variable::as_str).
var releasedVariables = []string{"cursor_line", "cursor_column", "buffer_name", "line_ending", "language",
	"selection", "selection_line_start", "selection_line_end"}

var variableRE = regexp.MustCompile(`%\{([a-z_]+)\}`)

var chatlsCommands = []string{"chatls.advance", "chatls.run", "chatls.cancel", "chatls.alwaysAllow", "chatls.explain", "chatls.listTools"}

func TestConfigToml(t *testing.T) {
	var f configFile
	decodeStrict(t, "config.toml", &f)

	for k := range f.Editor.LSP {
		if !slices.Contains([]string{"enable", "display-messages", "display-inlay-hints", "display-progress-messages", "auto-signature-help", "display-signature-help-docs", "snippets", "goto-reference-include-declaration"}, k) {
			t.Errorf("[editor.lsp] %s is not a Helix option", k)
		}
	}
	if f.Editor.LSP["display-inlay-hints"] != true {
		t.Error("display-inlay-hints must be on: the previews are inlay hints")
	}
	normal := f.Keys["normal"]
	if len(normal) == 0 {
		t.Fatal("no [keys.normal]")
	}
	sawAdvance := false
	for key, v := range normal {
		if !keyRE.MatchString(key) {
			t.Errorf("key %q is not Helix key notation", key)
		}
		cmd, ok := v.(string)
		if !ok {
			t.Errorf("key %q: want a command string, got %T", key, v)
			continue
		}
		if !strings.HasPrefix(cmd, ":") {
			if !slices.Contains(staticCommands, cmd) {
				t.Errorf("key %q: unknown static command %q", key, cmd)
			}
			continue
		}
		name, rest, _ := strings.Cut(strings.TrimPrefix(cmd, ":"), " ")
		if !slices.Contains(typableCommands, name) {
			t.Errorf("key %q: unknown typable command %q", key, name)
			continue
		}
		if name == "lsp-workspace-command" {
			server, args, _ := strings.Cut(rest, " ")
			if !slices.Contains(chatlsCommands, server) {
				t.Errorf("key %q: %q is not a chatls command", key, server)
			}
			sawAdvance = sawAdvance || server == "chatls.advance"
			// Only variables the current Helix release has (25.07.1's
			// helix-view/src/expansion.rs): an unknown one fails the command.
			for _, m := range variableRE.FindAllStringSubmatch(args, -1) {
				if !slices.Contains(releasedVariables, m[1]) {
					t.Errorf("key %q: %%{%s} is not a variable of Helix 25.07.1 (it has %v)", key, m[1], releasedVariables)
				}
			}
			// Helix expands variables, then parses the rest as a stream of JSON values.
			expanded := variableRE.ReplaceAllString(args, "notes/a.chat")
			dec := json.NewDecoder(strings.NewReader(expanded))
			for dec.More() {
				var arg map[string]any
				if err := dec.Decode(&arg); err != nil {
					t.Errorf("key %q: arguments %q are not JSON objects: %v", key, args, err)
					break
				}
				if server == "chatls.advance" && arg["path"] != "notes/a.chat" && arg["uri"] == nil {
					t.Errorf("key %q: advance argument %v lacks the document uri", key, arg)
				}
			}
		}
	}
	if !sawAdvance {
		t.Error("no key runs chatls.advance")
	}
}

func TestQueriesInheritMarkdown(t *testing.T) {
	for _, name := range []string{"highlights.scm", "injections.scm"} {
		data, err := os.ReadFile("runtime/queries/chat/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "; inherits: markdown") {
			t.Errorf("%s must inherit markdown's queries", name)
		}
	}
}

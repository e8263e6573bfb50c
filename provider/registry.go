package provider

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Entry is a provider entry (SPEC §7 "Providers"): a built-in one or
// `providers.NAME` from trusted settings.
type Entry struct {
	Name         string
	API          string // anthropic | openai | openai-chat | gemini | vertex | script | acp
	BaseURL      string
	KeyEnv       []string // variables tried in order
	KeyCommand   []string // argv whose stdout is the key, asked once per session
	NoKey        bool     // a local server that takes none (Ollama)
	Headers      map[string]string
	Models       map[string]ModelInfo // overrides of the built-in table
	DefaultModel string
	ScriptFile   string
	// Command and Env start an external agent (API acp, SPEC §12).
	Command []string
	Env     map[string]string
}

// Agents are the built-in agent entries (SPEC §12): each is offered when
// its program is on PATH. The Gemini CLI's is gemini-cli, since gemini is
// the Gemini API's entry.
var Agents = map[string][]string{
	"claude-code": {"claude-code-acp"},
	"codex":       {"codex-acp"},
	"gemini-cli":  {"gemini", "--experimental-acp"},
	"opencode":    {"opencode", "acp"},
}

// lookPath finds the built-in agents' programs; tests replace it.
var lookPath = exec.LookPath

// Builtins are the built-in entries.
func Builtins() map[string]Entry {
	return map[string]Entry{
		"anthropic":  {Name: "anthropic", API: "anthropic", KeyEnv: []string{"ANTHROPIC_API_KEY"}},
		"openai":     {Name: "openai", API: "openai", KeyEnv: []string{"OPENAI_API_KEY"}},
		"gemini":     {Name: "gemini", API: "gemini", KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}},
		"vertex":     {Name: "vertex", API: "vertex", KeyEnv: []string{"VERTEX_AI_ACCESS_TOKEN"}},
		"ollama":     {Name: "ollama", API: "openai-chat", BaseURL: "http://localhost:11434/v1/", NoKey: true},
		"openrouter": {Name: "openrouter", API: "openai-chat", BaseURL: "https://openrouter.ai/api/v1/", KeyEnv: []string{"OPENROUTER_API_KEY"}},
	}
}

// builtinAgents are the entries of Agents whose program is on PATH.
func builtinAgents(out map[string]Entry) {
	for name, argv := range Agents {
		if _, err := lookPath(argv[0]); err == nil {
			out[name] = Entry{Name: name, API: "acp", NoKey: true, Command: slices.Clone(argv)}
		}
	}
}

// ModelString is a parsed `PROVIDER/MODEL;key=value;…` string.
type ModelString struct {
	Provider, Model string
	Parameters      map[string]any
}

// ParseModel reads `PROVIDER/MODEL;key=value` (a model without a provider
// keeps Provider empty). Values that read as numbers or booleans become
// them, as Flemma's parser does.
func ParseModel(s string) (ModelString, error) {
	var out ModelString
	head, params, _ := strings.Cut(strings.TrimSpace(s), ";")
	if p, m, ok := strings.Cut(head, "/"); ok && !strings.Contains(p, ":") {
		out.Provider, out.Model = p, m
	} else {
		out.Model = head
	}
	if out.Model == "" && out.Provider == "" {
		return out, fmt.Errorf("model %q names no model", s)
	}
	for params != "" {
		var kv string
		kv, params = cutOption(params)
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return out, fmt.Errorf("model %q: %q is not key=value", s, kv)
		}
		if out.Parameters == nil {
			out.Parameters = map[string]any{}
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			out.Parameters[strings.TrimSpace(k)] = v[1 : len(v)-1] // quoted: a string as written
			continue
		}
		out.Parameters[strings.TrimSpace(k)] = scalar(v)
	}
	return out, nil
}

// cutOption is the first `key=value` of params and the rest: the `;` after
// it, outside a quoted value (Flemma 0.14: `;stop="a;b"`).
func cutOption(params string) (option, rest string) {
	quoted := false
	for i := 0; i < len(params); i++ {
		switch c := params[i]; {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			return params[:i], params[i+1:]
		}
	}
	return params, ""
}

func scalar(v string) any {
	switch v {
	case "true":
		return true
	case "false":
		return false
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	return v
}

// ModelInfo is what the entry (then the built-in table) knows of a model.
func (e Entry) ModelInfo(model string) *ModelInfo {
	info, ok := LookupModel(Family(e.API), model)
	if o, set := e.Models[model]; set {
		if !ok {
			info = ModelInfo{}
		}
		if o.ContextWindow > 0 {
			info.ContextWindow = o.ContextWindow
		}
		if o.MaxTokens > 0 {
			info.MaxTokens = o.MaxTokens
		}
		if o.Price != nil {
			info.Price = o.Price
		}
		return &info
	}
	if !ok {
		return nil
	}
	return &info
}

// Default is the model used when none is chosen: the entry's own, else
// its family's (a provider chosen alone never keeps another's model).
func (e Entry) Default() string {
	if e.DefaultModel != "" {
		return e.DefaultModel
	}
	switch e.API {
	case "openai-chat":
		return "" // each server has its own models
	case "script":
		return "script"
	case "acp":
		return e.Name // the agent chooses its model
	}
	return DefaultModel(Family(e.API))
}

// Keys finds entries' keys: the environment variables, or the key command
// run once per session (its result is kept in memory only).
type Keys struct {
	Getenv func(string) string // os.Getenv when nil
	mu     sync.Mutex
	cached map[string]string
}

// Key returns the entry's key, or an error that says what to set.
func (k *Keys) Key(ctx context.Context, e Entry) (string, error) {
	if e.NoKey || e.API == "script" || e.API == "acp" {
		return "", nil
	}
	getenv := k.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	for _, v := range e.KeyEnv {
		if key := strings.TrimSpace(getenv(v)); key != "" {
			return key, nil
		}
	}
	if len(e.KeyCommand) > 0 {
		return k.fromCommand(ctx, e)
	}
	if e.API == "vertex" {
		return "", nil // application default credentials
	}
	if len(e.KeyEnv) == 0 {
		return "", fmt.Errorf("provider %s has no key source: set apiKeyEnv or apiKeyCommand", e.Name)
	}
	return "", &MissingKeyError{Vars: e.KeyEnv}
}

// MissingKeyError is a provider whose key variable is not set; an editor
// tells the user to export it and restart the editor (the server's
// environment is the editor's).
type MissingKeyError struct{ Vars []string }

func (e *MissingKeyError) Error() string { return strings.Join(e.Vars, " or ") + " is not set" }

func (k *Keys) fromCommand(ctx context.Context, e Entry) (string, error) {
	id := e.Name + "\x00" + strings.Join(e.KeyCommand, "\x00")
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.cached[id]; ok {
		return key, nil
	}
	cmd := exec.CommandContext(ctx, e.KeyCommand[0], e.KeyCommand[1:]...)
	out, err := cmd.Output()
	if err != nil {
		// Never the command's output: it may hold the key.
		return "", fmt.Errorf("apiKeyCommand of provider %s failed: %v", e.Name, exitOnly(err))
	}
	key := strings.TrimSpace(string(out))
	if key == "" {
		return "", fmt.Errorf("apiKeyCommand of provider %s printed no key", e.Name)
	}
	if k.cached == nil {
		k.cached = map[string]string{}
	}
	k.cached[id] = key
	return key, nil
}

func exitOnly(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ProcessState.String()
	}
	return err.Error()
}

// Redact replaces every known key in s (for logs and error texts).
func Redact(s string, keys ...string) string {
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		if len(k) >= 8 {
			s = strings.ReplaceAll(s, k, "[redacted]")
		}
	}
	return s
}

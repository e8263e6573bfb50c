package provider

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/frontmatter"
)

// DefaultProvider is the provider used when nothing chooses one (Flemma's).
const DefaultProvider = "anthropic"

// apiTypes are the values of providers.NAME.type.
var apiTypes = []string{"anthropic", "openai", "openai-chat", "gemini", "vertex", "script", "acp"}

// Entries are the built-in entries with the trusted settings' providers
// over them: a configured entry named like a built-in one changes only
// the fields it sets.
func Entries(cfg map[string]config.ProviderSettings) (map[string]Entry, error) {
	out := Builtins()
	builtinAgents(out)
	for _, name := range slices.Sorted(maps.Keys(cfg)) {
		p := cfg[name]
		e, builtin := out[name]
		if argv, agent := Agents[name]; agent && !builtin {
			// A built-in agent configured (its env, say) while its program
			// is not on PATH: starting it says so.
			e, builtin = Entry{API: "acp", NoKey: true, Command: slices.Clone(argv)}, true
		}
		e.Name = name
		if p.Type != "" {
			if !slices.Contains(apiTypes, p.Type) {
				return nil, fmt.Errorf("providers.%s.type %q is not one of %s", name, p.Type, strings.Join(apiTypes, ", "))
			}
			e.API = p.Type
		} else if !builtin {
			return nil, fmt.Errorf("providers.%s needs a type (%s)", name, strings.Join(apiTypes, ", "))
		}
		if p.BaseURL != "" {
			e.BaseURL = p.BaseURL
		}
		if p.APIKeyEnv != "" {
			e.KeyEnv, e.NoKey = []string{p.APIKeyEnv}, false
		}
		if len(p.APIKeyCommand) > 0 {
			e.KeyCommand, e.NoKey = p.APIKeyCommand, false
		}
		if !builtin && e.API == "openai-chat" && p.APIKeyEnv == "" && len(p.APIKeyCommand) == 0 {
			e.NoKey = true // a local server (llama.cpp, vLLM, LM Studio) takes none
		}
		if len(p.Headers) > 0 {
			e.Headers = maps.Clone(p.Headers)
		}
		e.Models = modelOverrides(p.Models)
		e.DefaultModel = cmp.Or(p.Model, e.DefaultModel)
		e.ScriptFile = cmp.Or(p.File, e.ScriptFile)
		if len(p.Command) > 0 {
			e.Command = slices.Clone(p.Command)
		}
		if len(p.Env) > 0 {
			e.Env = maps.Clone(p.Env)
		}
		if e.API == "acp" {
			e.NoKey = true // the agent has its own keys (its env)
		}
		switch {
		case e.API == "openai-chat" && e.BaseURL == "":
			return nil, fmt.Errorf("providers.%s needs a baseURL (an OpenAI-compatible server's /v1 address)", name)
		case e.API == "script" && e.ScriptFile == "":
			return nil, fmt.Errorf("providers.%s needs a file (the scripted responses)", name)
		case e.API == "acp" && len(e.Command) == 0:
			return nil, fmt.Errorf("providers.%s needs a command (the agent's program and arguments: [\"claude-code-acp\"])", name)
		}
		out[name] = e
	}
	return out, nil
}

func modelOverrides(models map[string]config.ModelSettings) map[string]ModelInfo {
	if len(models) == 0 {
		return nil
	}
	out := make(map[string]ModelInfo, len(models))
	for name, m := range models {
		var info ModelInfo
		if m.ContextWindow != nil {
			info.ContextWindow = *m.ContextWindow
		}
		if m.MaxTokens != nil {
			info.MaxTokens = *m.MaxTokens
		}
		if p := m.Price; p != nil {
			info.Price = &Price{CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
			if p.Input != nil {
				info.Price.Input = *p.Input
			}
			if p.Output != nil {
				info.Price.Output = *p.Output
			}
		}
		out[name] = info
	}
	return out
}

// Selection is what a document sends with: an entry, its model and the
// parameters (general keys, then tables per family or entry).
type Selection struct {
	Entry      Entry
	Model      string
	Parameters map[string]any
}

// SelectProblem is a frontmatter option chatls does not honour, at the
// line that set it.
type SelectProblem struct {
	Line    int // 0-based document line
	Message string
}

// aliases are Flemma's top-level options that stand for parameters.*.
var aliases = map[string]bool{"thinking": true, "temperature": true, "max_tokens": true, "timeout": true, "cache_retention": true}

// connectionKeys are where a conversation and keys go: trusted settings
// only, never a document (SPEC §7 "Keys and trust").
var connectionKeys = map[string]bool{"providers": true, "base_url": true, "baseurl": true, "endpoint": true, "host": true,
	"headers": true, "api_key": true, "apikey": true, "apikeyenv": true, "apikeycommand": true, "api_key_env": true}

// Select resolves the settings, then the document's frontmatter options
// (Flemma's flemma.opt.provider, .model, .parameters.*, the aliases and
// .PROVIDER.*), to an entry, model and parameters. A model string
// `PROVIDER/MODEL;k=v` names its provider and adds parameters that win
// over the general ones. Options that would say where the request goes
// are ignored and reported.
func Select(eff config.Effective, entries map[string]Entry, fm []frontmatter.OptionOp) (Selection, []SelectProblem, error) {
	providerName, model := eff.Provider, eff.Model
	params := cloneTable(eff.Parameters)
	var problems []SelectProblem
	for _, op := range fm {
		head, rest, _ := strings.Cut(op.Path, ".")
		if isConnectionPath(op.Path) {
			problems = append(problems, SelectProblem{op.Line, fmt.Sprintf("flemma.opt.%s ignored: where a request goes (URLs, headers, keys) comes only from your trusted settings", op.Path)})
			continue
		}
		if op.Op != "set" || len(op.Values) != 1 {
			continue
		}
		v := op.Values[0]
		switch {
		case op.Path == "provider":
			s, _ := v.(string)
			providerName, model = s, "" // a provider alone takes its own default model
		case op.Path == "model":
			s, _ := v.(string)
			model = s
		case head == "parameters" && rest != "":
			setPath(params, rest, v)
		case aliases[head]:
			setPath(params, op.Path, v)
		case rest != "" && (families[head] || head == "gemini" || entries[head].Name != ""):
			setPath(params, op.Path, v)
		}
	}
	if model != "" {
		ms, err := ParseModel(model)
		if err != nil {
			return Selection{}, problems, err
		}
		if ms.Provider != "" {
			providerName = ms.Provider
		}
		model = ms.Model
		if len(ms.Parameters) > 0 {
			name := cmp.Or(providerName, DefaultProvider)
			specific, _ := params[name].(map[string]any)
			specific = cloneTable(specific)
			maps.Copy(specific, ms.Parameters)
			params[name] = specific
		}
	}
	providerName = cmp.Or(providerName, DefaultProvider)
	e, ok := entries[providerName]
	if !ok {
		return Selection{}, problems, fmt.Errorf("unknown provider %q (configured: %s)", providerName, strings.Join(slices.Sorted(maps.Keys(entries)), ", "))
	}
	if model == "" {
		model = e.Default()
	}
	if model == "" {
		return Selection{}, problems, fmt.Errorf("provider %s has no default model: set model (or providers.%s.model)", e.Name, e.Name)
	}
	return Selection{Entry: e, Model: model, Parameters: params}, problems, nil
}

func isConnectionPath(path string) bool {
	for _, part := range strings.Split(path, ".") {
		if connectionKeys[strings.ToLower(part)] {
			return true
		}
	}
	return false
}

// setPath sets a dotted path in a parameters table, making tables on the way.
func setPath(t map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		sub, ok := t[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
		} else {
			sub = cloneTable(sub)
		}
		t[p] = sub
		t = sub
	}
	t[parts[len(parts)-1]] = v
}

func cloneTable(t map[string]any) map[string]any {
	out := make(map[string]any, len(t))
	maps.Copy(out, t)
	return out
}

// Prepare turns a selection into a request for the prompt: the key (from
// the entry's sources), the connection, the model's table entry, the
// retry policy and, for a script entry, its responses.
func Prepare(ctx context.Context, sel Selection, keys *Keys, prompt *Prompt, maxRetries int) (*Request, error) {
	e := sel.Entry
	key, err := keys.Key(ctx, e)
	if err != nil {
		return nil, err
	}
	r := &Request{
		API: e.API, Entry: e.Name, Model: sel.Model, Prompt: prompt,
		Parameters: sel.Parameters, Info: e.ModelInfo(sel.Model),
		Conn:  Conn{BaseURL: e.BaseURL, Key: key, Headers: e.Headers},
		Retry: RetryPolicy{Max: maxRetries},
	}
	if e.API == "vertex" {
		flat := flatParams(Family(e.API), e.Name, sel.Parameters)
		r.Conn.Project = cmp.Or(str(flat["project_id"]), os.Getenv("GOOGLE_CLOUD_PROJECT"))
		r.Conn.Location = cmp.Or(str(flat["location"]), os.Getenv("GOOGLE_CLOUD_LOCATION"))
	}
	if e.API == "script" {
		if r.Script, err = LoadScript(e.ScriptFile); err != nil {
			return nil, fmt.Errorf("script provider %s: %w", e.Name, err)
		}
	}
	return r, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// KeyVars are the apiKeyEnv variables the settings' provider entries name:
// with keyenv.Standard, what no program chatls starts may see.
func KeyVars(effs ...config.Effective) []string {
	var out []string
	for _, e := range effs {
		for _, p := range e.Providers {
			if p.APIKeyEnv != "" && !slices.Contains(out, p.APIKeyEnv) {
				out = append(out, p.APIKeyEnv)
			}
		}
	}
	slices.Sort(out)
	return out
}

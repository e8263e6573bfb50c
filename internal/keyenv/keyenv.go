// Package keyenv keeps model-provider keys out of every environment chatls
// gives a program it starts — tools, plugins, MCP servers, resolvers
// (SPEC §7 "Keys and trust"): a model that runs `env` learns nothing.
package keyenv

import (
	"os"
	"slices"
	"strings"
	"sync/atomic"
)

// Standard are the variables chatls reads provider keys from.
var Standard = []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY",
	"GOOGLE_API_KEY", "VERTEX_AI_ACCESS_TOKEN", "OPENROUTER_API_KEY"}

// configured are the apiKeyEnv variables the trusted settings name; the
// settings can change while chatls runs, so it is swapped whole.
var configured atomic.Pointer[[]string]

// SetConfigured replaces the settings' apiKeyEnv variables.
func SetConfigured(names []string) {
	names = slices.Clone(names)
	configured.Store(&names)
}

// Names are every variable kept out: the standard ones and the configured.
func Names() []string {
	out := slices.Clone(Standard)
	if c := configured.Load(); c != nil {
		out = append(out, *c...)
	}
	return out
}

// Environ is chatls's own environment without the key variables.
func Environ() []string { return Strip(os.Environ()) }

// Strip drops the key variables from env (KEY=VALUE entries).
func Strip(env []string) []string {
	names := Names()
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, name) {
			out = append(out, kv)
		}
	}
	return out
}

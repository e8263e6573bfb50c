package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// No program chatls starts sees a provider key (SPEC §7 "Keys and trust"):
// the standard variables and every apiKeyEnv of the settings are gone from
// the environment of a bash call and of a resolver, and the server's debug
// log never holds them.
func TestToolsNeverSeeProviderKeys(t *testing.T) {
	secrets := map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-e2e-secret-0001",
		"OPENAI_API_KEY":    "sk-openai-e2e-secret-0002",
		"GEMINI_API_KEY":    "gemini-e2e-secret-0003",
		"GROQ_TOKEN":        "groq-e2e-secret-0004", // named by apiKeyEnv only
	}
	var env []string
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	resolverEnv := filepath.Join(t.TempDir(), "resolver-env")
	resolver := filepath.Join(t.TempDir(), "resolver.sh")
	writeExecutable(t, resolver, "#!/bin/sh\nenv > "+resolverEnv+"\ncat >/dev/null\necho '{\"decision\":\"approve\",\"reason\":\"env test\"}'\n")
	user := "[providers.groq]\ntype = \"openai-chat\"\nbaseURL = \"http://127.0.0.1:9/v1\"\napiKeyEnv = \"GROQ_TOKEN\"\n\n" +
		"[[resolvers]]\nname = \"envdump\"\ncommand = \"" + resolver + "\"\n" +
		// Outside the sandbox, where the scrubbing is all that hides the keys
		// (inside, the environment is an allowlist).
		"[sandbox]\nenabled = false\n"
	s := startWithUserConfig(t, sessionOptions{env: append(env, "CHATLS_E2E_VISIBLE=yes")}, user, "")
	doc := "@You:\ngo\n\n@Assistant:\n**Tool Use:** `bash` (`toolu_env`)\n\n```json\n{\"command\": \"env\"}\n```\n\n@You:\n"
	uri := s.open("env.chat", doc)
	s.advance(uri)
	s.waitText(uri, "**Tool Result:** `toolu_env`", "CHATLS_E2E_VISIBLE=yes")
	text := s.c.Doc(uri).Text
	resolverSaw, err := os.ReadFile(resolverEnv)
	if err != nil {
		t.Fatalf("the resolver did not run: %v", err)
	}
	if !strings.Contains(string(resolverSaw), "CHATLS_E2E_VISIBLE=yes") {
		t.Fatalf("the resolver's environment is not the server's: %s", resolverSaw)
	}
	for name, secret := range secrets {
		for what, seen := range map[string]string{"the bash result": text, "the resolver": string(resolverSaw), "the server log": s.c.Stderr()} {
			if strings.Contains(seen, secret) || strings.Contains(seen, name+"=") {
				t.Errorf("%s saw %s", what, name)
			}
		}
	}
}

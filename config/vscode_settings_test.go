package config

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The VS Code extension contributes one setting per server key; editor
// settings count as trusted user config (SPEC §4), so every key that can
// widen what runs or change which programs start must be user-only
// (`machine` or `application` scope): otherwise a repository's
// .vscode/settings.json could approve tools, drop the user's deny list,
// turn the sandbox off or start a plugin.

// workspaceScopedKeys may come from a repository's workspace settings: they
// change how chatls behaves, not what it is allowed to run.
var workspaceScopedKeys = map[string]bool{
	"autopilot":            true,
	"placeholderStyle":     true,
	"tools.maxConcurrent":  true,
	"tools.defaultTimeout": true,
	"tools.retries":        true,
	"tools.bash.timeout":   true,
	"inlayHints.maxLength": true,
	// A choice among the providers the user configured, never where they are.
	"provider":   true,
	"model":      true,
	"parameters": true,
}

// notContributed are server keys for files only: Flemma-style list
// modifiers that make sense when layering .chatls.toml over user config.
var notContributed = map[string]bool{
	"tools.autoApproveAppend": true,
	"tools.autoApproveRemove": true,
	// keys: the extension passes the key names of its own bindings.
	"keys": true,
}

func TestVSCodeExtensionContributesEveryServerSetting(t *testing.T) {
	data, err := os.ReadFile("../clients/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Scope               string `json:"scope"`
					Description         string `json:"description"`
					MarkdownDescription string `json:"markdownDescription"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	props := pkg.Contributes.Configuration.Properties

	keys := settingKeys(reflect.TypeOf(Settings{}), "")
	if len(keys) < 20 {
		t.Fatalf("found only %d server keys: %v", len(keys), keys)
	}
	for _, key := range keys {
		if notContributed[key] {
			continue
		}
		p, ok := props["chatls."+key]
		if !ok {
			t.Errorf("clients/vscode/package.json does not contribute chatls.%s", key)
			continue
		}
		if p.Description == "" && p.MarkdownDescription == "" {
			t.Errorf("chatls.%s has no description", key)
		}
		userOnly := p.Scope == "machine" || p.Scope == "application"
		if !workspaceScopedKeys[key] && !userOnly {
			t.Errorf("chatls.%s has scope %q: a repository's workspace settings could change what runs; use \"machine\"", key, p.Scope)
		}
	}
	known := map[string]bool{}
	for _, k := range keys {
		known[k] = true
	}
	for name := range props {
		key := strings.TrimPrefix(name, "chatls.")
		if strings.HasPrefix(key, "server.") || strings.HasPrefix(key, "trace.") {
			continue // client-only: how to start the server
		}
		if !known[key] {
			t.Errorf("package.json contributes %s, which the server does not read", name)
		}
	}
}

// settingKeys lists the dotted JSON keys of the leaf settings: scalars,
// lists and maps (whose entries the user names freely).
func settingKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			out = append(out, settingKeys(ft, key)...)
		} else {
			out = append(out, key)
		}
	}
	sort.Strings(out)
	return out
}

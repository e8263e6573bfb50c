package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Warning is a problem that does not stop a configuration from loading,
// such as an unknown key. File and Line are empty/0 when unknown.
type Warning struct {
	File    string
	Line    int
	Message string
}

func (w Warning) String() string {
	switch {
	case w.File != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Message)
	case w.File != "":
		return w.File + ": " + w.Message
	}
	return w.Message
}

// DecodeJSON reads settings from initializationOptions or the answer to
// workspace/configuration. The settings object may also come wrapped as
// {"chatls": {...}}. null or empty input is empty settings.
func DecodeJSON(raw json.RawMessage) (Settings, []Warning, error) {
	var s Settings
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil, nil
	}
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return s, nil, fmt.Errorf("chatls settings must be a JSON object: %w", err)
	}
	if inner, ok := generic["chatls"].(map[string]any); ok && len(generic) == 1 {
		generic = inner
		raw, _ = json.Marshal(inner)
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Settings{}, nil, fmt.Errorf("chatls settings: %q must be %s, not a JSON %s; fix it in the editor's settings", te.Field, te.Type, te.Value)
		}
		return Settings{}, nil, fmt.Errorf("chatls settings: %w", err)
	}
	if err := validate("", s); err != nil {
		return Settings{}, nil, err
	}
	var warns []Warning
	for _, u := range unknownKeys(generic, "json") {
		warns = append(warns, Warning{Message: u.message()})
	}
	return s, warns, nil
}

// LoadFile reads a TOML configuration file. A missing file is empty settings
// and no error; syntax and type errors, and rules the registered validators
// reject, carry file:line.
func LoadFile(path string) (Settings, []Warning, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Settings{}, nil, nil
	}
	if err != nil {
		return Settings{}, nil, fmt.Errorf("read config: %w", err)
	}
	s, warns, err := ParseTOML(path, data)
	if err != nil {
		return Settings{}, warns, err
	}
	if err := validate(path, s); err != nil {
		return Settings{}, warns, err
	}
	anchorScriptFiles(s, filepath.Dir(path))
	return s, warns, nil
}

// anchorScriptFiles makes a script provider's relative file relative to the
// settings file that names it, not to wherever chatls was started.
func anchorScriptFiles(s Settings, dir string) {
	for name, p := range s.Providers {
		if p.File != "" && !filepath.IsAbs(p.File) && !strings.HasPrefix(p.File, "~/") {
			p.File = filepath.Join(dir, p.File)
			s.Providers[name] = p
		}
	}
}

// Validator checks settings beyond their shape: the approval package
// registers one that compiles every rule and checks [[tools.rules]]
// examples, so a file with a broken rule is refused when it loads (and the
// caller keeps its last good settings) instead of breaking every decision.
// file is "" for the editor's settings.
type Validator func(file string, s Settings) error

var validators []Validator

// RegisterValidator adds a check that LoadFile and DecodeJSON run; call it
// from an init function.
func RegisterValidator(v Validator) { validators = append(validators, v) }

func validate(file string, s Settings) error {
	var errs []error
	for _, v := range validators {
		if err := v(file, s); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ParseTOML decodes TOML text as if read from the file name (used in messages).
func ParseTOML(path string, data []byte) (Settings, []Warning, error) {
	var s Settings
	// The interface lets sandbox.enabled be true, false or "auto".
	if err := toml.NewDecoder(bytes.NewReader(data)).EnableUnmarshalerInterface().Decode(&s); err != nil {
		return Settings{}, nil, tomlError(path, data, err)
	}
	var generic map[string]any
	if err := toml.Unmarshal(data, &generic); err != nil {
		return Settings{}, nil, tomlError(path, data, err)
	}
	shape := scanTOML(data)
	s.Lines = shape.values
	var warns []Warning
	for _, u := range unknownKeys(generic, "toml") {
		warns = append(warns, Warning{File: path, Line: shape.keys[u.path], Message: u.message()})
	}
	return s, warns, nil
}

// tomlError turns go-toml's errors into "file:line:col: message; what to do".
func tomlError(path string, data []byte, err error) error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("%s:%d:%d: %s (fix this line)", path, row, col, de.Error())
	}
	var se *toml.StrictMissingError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: %s", path, se.Error())
	}
	// Type mismatches carry no position; name the key instead.
	return fmt.Errorf("%s: %v (check the value's type against docs/policy.md)", path, err)
}

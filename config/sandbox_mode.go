package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SandboxMode is sandbox.enabled (SPEC §5): SandboxAuto, the default, runs
// bash inside bubblewrap wherever it can start; SandboxOn (true) makes a
// failure to start an error; SandboxOff (false) runs bash directly and counts
// only from trusted settings.
type SandboxMode string

const (
	SandboxAuto SandboxMode = "auto"
	SandboxOn   SandboxMode = "true"
	SandboxOff  SandboxMode = "false"
)

// Ptr returns a pointer to m, for settings written in code.
func (m SandboxMode) Ptr() *SandboxMode { return &m }

// SandboxModeOf is the mode of a boolean setting.
func SandboxModeOf(on bool) *SandboxMode {
	if on {
		return SandboxOn.Ptr()
	}
	return SandboxOff.Ptr()
}

func parseSandboxMode(raw []byte) (SandboxMode, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return SandboxOn, nil
	case "false":
		return SandboxOff, nil
	case `"auto"`, `'auto'`:
		return SandboxAuto, nil
	}
	return "", fmt.Errorf("sandbox.enabled must be true, false or \"auto\", not %s", bytes.TrimSpace(raw))
}

func (m *SandboxMode) UnmarshalJSON(raw []byte) error {
	v, err := parseSandboxMode(raw)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// UnmarshalTOML reads the raw TOML value (ParseTOML enables the interface).
func (m *SandboxMode) UnmarshalTOML(raw []byte) error { return m.UnmarshalJSON(raw) }

func (m SandboxMode) MarshalJSON() ([]byte, error) {
	switch m {
	case SandboxOn:
		return []byte("true"), nil
	case SandboxOff:
		return []byte("false"), nil
	}
	return json.Marshal(string(SandboxAuto))
}

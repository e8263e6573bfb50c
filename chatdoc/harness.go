package chatdoc

import (
	"encoding/json"
	"strings"
)

// Harness keys (Flemma 0.12, SPEC §1) may appear in any tool's input: they
// are instructions to chatls, not to the tool, and are taken out before
// the input is validated or the tool runs.
const (
	// KeyBackground: true runs the call in the background as a job.
	KeyBackground = "flemma.background"
	// KeySaveTo: the full output goes to this path of the result store.
	KeySaveTo = "flemma.save_to"
)

// ToolInput is the input the tool gets: Input without the harness keys.
func (u *ToolUse) ToolInput() map[string]any {
	in := u.Input()
	delete(in, KeyBackground)
	delete(in, KeySaveTo)
	return in
}

// ToolInputText is RawInput without the harness keys, as JSON (RawInput
// itself when it has none: the usual input is not decoded).
func (u *ToolUse) ToolInputText() string {
	if !strings.Contains(u.RawInput, `"flemma.`) {
		return u.RawInput
	}
	b, err := json.Marshal(u.ToolInput())
	if err != nil {
		return u.RawInput
	}
	return string(b)
}

// Background says the call asks to run in the background.
func (u *ToolUse) Background() bool {
	if !strings.Contains(u.RawInput, KeyBackground) {
		return false
	}
	v, _ := u.Input()[KeyBackground].(bool)
	return v
}

// SaveTo is the path the call's full output is to be saved to ("": none).
func (u *ToolUse) SaveTo() string {
	if !strings.Contains(u.RawInput, KeySaveTo) {
		return ""
	}
	v, _ := u.Input()[KeySaveTo].(string)
	return v
}

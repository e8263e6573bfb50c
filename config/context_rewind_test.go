package config

import (
	"path/filepath"
	"testing"

	"github.com/chatls/chatls/internal/testfs"
	"github.com/google/go-cmp/cmp"
)

func TestContextAndRewindSettings(t *testing.T) {
	for _, c := range []struct {
		name, toml    string
		context       EffectiveContext
		rewind        EffectiveRewind
		unknownWarned bool
	}{
		{"defaults", ``, EffectiveContext{WarnAt: 0.8, KeepRecent: 0.25}, EffectiveRewind{Enabled: true, MaxFileSize: 10 << 20, KeepDays: 30}, false},
		{"percents as people write them", "[context]\nwarnAt = 70\nkeepRecent = 40\nsummaryModel = \"openai/gpt-5-mini\"\n",
			EffectiveContext{WarnAt: 0.7, KeepRecent: 0.4, SummaryModel: "openai/gpt-5-mini"}, defaultRewind(), false},
		{"fractions as JSON clients send them", "[context]\nwarnAt = 0.9\nkeepRecent = 0.1\n",
			EffectiveContext{WarnAt: 0.9, KeepRecent: 0.1}, defaultRewind(), false},
		{"out of range is ignored, not a switch-off", "[context]\nwarnAt = 0\nkeepRecent = 250\n", defaultContext(), defaultRewind(), false},
		{"rewind", "[rewind]\nenabled = false\nmaxFileSize = 1048576\nkeepDays = 7\n",
			defaultContext(), EffectiveRewind{Enabled: false, MaxFileSize: 1 << 20, KeepDays: 7}, false},
		{"a misspelt key is named", "[rewind]\nkeepDay = 7\n", defaultContext(), defaultRewind(), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			testfs.Write(t, path, c.toml)
			s, warnings, err := LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			e := Merge(s)
			if d := cmp.Diff(c.context, e.Context); d != "" {
				t.Errorf("context (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.rewind, e.Rewind); d != "" {
				t.Errorf("rewind (-want +got):\n%s", d)
			}
			if got := len(warnings) > 0; got != c.unknownWarned {
				t.Errorf("warnings %v, want some: %v", warnings, c.unknownWarned)
			}
		})
	}
}

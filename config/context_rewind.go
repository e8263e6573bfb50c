package config

// ContextSettings is context.* (SPEC §11): when the conversation nears the
// model's context window and how compaction cuts it.
type ContextSettings struct {
	// WarnAt is the share of the window at which the `@You:` marker warns:
	// 0.8 or 80 (a percent); default 80%.
	WarnAt *float64 `json:"warnAt,omitempty" toml:"warnAt,omitempty"`
	// KeepRecent is how much of the newest conversation compaction keeps,
	// as a share of the window: 0.25 or 25; default 25%.
	KeepRecent *float64 `json:"keepRecent,omitempty" toml:"keepRecent,omitempty"`
	// SummaryModel is the model string (`provider/model` or `model`) that
	// writes the summary; default the document's own.
	SummaryModel string `json:"summaryModel,omitempty" toml:"summaryModel,omitempty"`
}

// RewindSettings is rewind.* (SPEC §10): the checkpoints taken before calls
// that can change files.
type RewindSettings struct {
	Enabled     *bool  `json:"enabled,omitempty" toml:"enabled,omitempty"`
	MaxFileSize *int64 `json:"maxFileSize,omitempty" toml:"maxFileSize,omitempty"` // bytes
	KeepDays    *int   `json:"keepDays,omitempty" toml:"keepDays,omitempty"`
}

// EffectiveContext is context.* with defaults; shares are fractions.
type EffectiveContext struct {
	WarnAt       float64
	KeepRecent   float64
	SummaryModel string
}

// EffectiveRewind is rewind.* with defaults.
type EffectiveRewind struct {
	Enabled     bool
	MaxFileSize int64
	KeepDays    int
}

const (
	DefaultContextWarnAt     = 0.8
	DefaultContextKeepRecent = 0.25
	DefaultRewindMaxFileSize = 10 << 20
	DefaultRewindKeepDays    = 30
)

func defaultContext() EffectiveContext {
	return EffectiveContext{WarnAt: DefaultContextWarnAt, KeepRecent: DefaultContextKeepRecent}
}

func defaultRewind() EffectiveRewind {
	return EffectiveRewind{Enabled: true, MaxFileSize: DefaultRewindMaxFileSize, KeepDays: DefaultRewindKeepDays}
}

func mergeContextRewind(e *Effective, l Settings) {
	if s, ok := share(l.Context.WarnAt); ok {
		e.Context.WarnAt = s
	}
	if s, ok := share(l.Context.KeepRecent); ok {
		e.Context.KeepRecent = s
	}
	if l.Context.SummaryModel != "" {
		e.Context.SummaryModel = l.Context.SummaryModel
	}
	setBool(&e.Rewind.Enabled, l.Rewind.Enabled)
	if v := l.Rewind.MaxFileSize; v != nil && *v > 0 {
		e.Rewind.MaxFileSize = *v
	}
	setPositive(&e.Rewind.KeepDays, l.Rewind.KeepDays)
}

// share reads 0.8 and 80 alike (people write percents; JSON clients
// fractions); anything outside (0, 100] is ignored, so a typo cannot turn
// the warning off.
func share(v *float64) (float64, bool) {
	switch {
	case v == nil || *v <= 0 || *v > 100:
		return 0, false
	case *v > 1:
		return *v / 100, true
	default:
		return *v, true
	}
}

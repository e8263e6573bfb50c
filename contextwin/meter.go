package contextwin

import (
	"math"
	"strconv"
)

// The settings' defaults (SPEC §11).
const (
	DefaultWarnAt     = 0.8  // context.warnAt: warn from this share of the window
	DefaultKeepRecent = 0.25 // context.keepRecent: the share compaction keeps
)

// The titles of the two actions (SPEC §11).
const (
	ActionCompact = "Compact the conversation"
	ActionTrim    = "Trim old tool outputs"
)

// KeepTokens is how many of the newest tokens compaction and trimming keep:
// keepRecent (DefaultKeepRecent when not in (0, 1]) of the window.
func KeepTokens(window int, keepRecent float64) int {
	if keepRecent <= 0 || keepRecent > 1 {
		keepRecent = DefaultKeepRecent
	}
	return int(math.Ceil(float64(window) * keepRecent))
}

// Share is the part of the window that tokens fill (above 1 when they
// overflow it); 0 for an unknown window (window <= 0).
func Share(tokens, window int) float64 {
	if window <= 0 {
		return 0
	}
	return float64(tokens) / float64(window)
}

// Level is how full the window is.
type Level int

const (
	LevelOK   Level = iota
	LevelWarn       // at or above warnAt: the `@You:` marker warns
	LevelOver       // at or above the whole window: the send is refused
)

// LevelAt is the level of a share: LevelOver from 1, LevelWarn from warnAt
// (DefaultWarnAt when warnAt <= 0; a warnAt above 1 never warns).
func LevelAt(share, warnAt float64) Level {
	if warnAt <= 0 {
		warnAt = DefaultWarnAt
	}
	switch {
	case share >= 1:
		return LevelOver
	case share >= warnAt:
		return LevelWarn
	}
	return LevelOK
}

// Meter is the lens's share of the window, "63% of 200k"; "" for an
// unknown window. The lens adds it after " · ".
func Meter(tokens, window int) string {
	if window <= 0 {
		return ""
	}
	return percent(Share(tokens, window)) + " of " + WindowLabel(window)
}

// percent is a share in whole percents, rounded down: "79%" is below a
// warnAt of 80%, and "100%" is never shown for a request that still fits.
func percent(share float64) string {
	return strconv.Itoa(int(math.Floor(share*100+1e-9))) + "%"
}

// WindowLabel is a window's size as people read it: 200k, 128k, 16k for
// 16,385, 1M for 1,048,576, 1.5M. It rounds down to whole thousands (tenths
// of a million from 1M), like the models' names and docs (gpt-3.5-turbo-16k
// has 16,385 tokens), and so never shows a window larger than it is. The k
// is shortCount's of the usage lens ("12.3k in"), without its decimal:
// windows are round numbers.
func WindowLabel(window int) string {
	switch {
	case window < 1000:
		return strconv.Itoa(window)
	case window < 1_000_000:
		return strconv.Itoa(window/1000) + "k"
	}
	tenths := window / 100_000
	if tenths%10 == 0 {
		return strconv.Itoa(tenths/10) + "M"
	}
	return strconv.Itoa(tenths/10) + "." + strconv.Itoa(tenths%10) + "M"
}

// WarnMessage is the warning on the `@You:` marker at LevelWarn.
func WarnMessage(tokens, window int) string {
	return "The conversation uses about " + percent(Share(tokens, window)) + " of the model's " +
		WindowLabel(window) + "-token context window; compact it before it overflows."
}

// RefuseMessage is why a send is refused at LevelOver.
func RefuseMessage(tokens, window int) string {
	return "The request would use about " + percent(Share(tokens, window)) + " of the " +
		WindowLabel(window) + "-token context window: compact the conversation first."
}

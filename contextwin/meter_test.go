package contextwin

import "testing"

func TestWindowLabel(t *testing.T) {
	tests := []struct {
		window int
		want   string
	}{
		{999, "999"},
		{4096, "4k"},
		{8192, "8k"},
		{16385, "16k"},
		{32768, "32k"},
		{128000, "128k"},
		{200000, "200k"},
		{922000, "922k"},
		{999999, "999k"},
		{1000000, "1M"},
		{1047576, "1M"},
		{1048576, "1M"},
		{1500000, "1.5M"},
		{2000000, "2M"},
	}
	for _, tt := range tests {
		if got := WindowLabel(tt.window); got != tt.want {
			t.Errorf("WindowLabel(%d) = %q, want %q", tt.window, got, tt.want)
		}
	}
}

func TestMeter(t *testing.T) {
	tests := []struct {
		tokens, window int
		want           string
	}{
		{126000, 200000, "63% of 200k"},
		{159999, 200000, "79% of 200k"}, // rounded down: below the warning
		{160000, 200000, "80% of 200k"},
		{199999, 200000, "99% of 200k"}, // never 100% while it fits
		{208000, 200000, "104% of 200k"},
		{0, 1048576, "0% of 1M"},
		{100, 0, ""}, // unknown window
	}
	for _, tt := range tests {
		if got := Meter(tt.tokens, tt.window); got != tt.want {
			t.Errorf("Meter(%d, %d) = %q, want %q", tt.tokens, tt.window, got, tt.want)
		}
	}
}

func TestLevelAt(t *testing.T) {
	tests := []struct {
		share, warnAt float64
		want          Level
	}{
		{0.5, 0.8, LevelOK},
		{0.7999, 0.8, LevelOK},
		{0.8, 0.8, LevelWarn},
		{0.9999, 0.8, LevelWarn},
		{1, 0.8, LevelOver},
		{1.4, 0.8, LevelOver},
		{0.8, 0, LevelWarn}, // unset: the default
		{0.75, 0, LevelOK},  // unset: the default
		{0.6, 0.5, LevelWarn},
		{0.99, 1.5, LevelOK}, // a warnAt above 1 never warns
		{1, 1.5, LevelOver},
	}
	for _, tt := range tests {
		if got := LevelAt(tt.share, tt.warnAt); got != tt.want {
			t.Errorf("LevelAt(%v, %v) = %v, want %v", tt.share, tt.warnAt, got, tt.want)
		}
	}
	if Share(50, 0) != 0 || Share(50, 200) != 0.25 {
		t.Errorf("Share: got %v and %v, want 0 and 0.25", Share(50, 0), Share(50, 200))
	}
}

func TestMessages(t *testing.T) {
	if got, want := WarnMessage(166000, 200000), "The conversation uses about 83% of the model's 200k-token context window; compact it before it overflows."; got != want {
		t.Errorf("WarnMessage:\n got %q\nwant %q", got, want)
	}
	if got, want := RefuseMessage(208000, 200000), "The request would use about 104% of the 200k-token context window: compact the conversation first."; got != want {
		t.Errorf("RefuseMessage:\n got %q\nwant %q", got, want)
	}
}

func TestKeepTokens(t *testing.T) {
	for _, tt := range []struct {
		window int
		keep   float64
		want   int
	}{{200000, 0.25, 50000}, {200000, 0, 50000}, {200000, 2, 50000}, {200000, 0.1, 20000}, {16385, 0.25, 4097}} {
		if got := KeepTokens(tt.window, tt.keep); got != tt.want {
			t.Errorf("KeepTokens(%d, %v) = %d, want %d", tt.window, tt.keep, got, tt.want)
		}
	}
}

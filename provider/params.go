package provider

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Defaults as Flemma 0.11 sends them.
const (
	DefaultThinking  = "high"
	DefaultMaxTokens = "50%"
	fallbackMax      = 4000 // max_tokens for a model the table does not know
	minMaxTokens     = 1024
)

var families = map[string]bool{"anthropic": true, "openai": true, "vertex": true}

// params are the resolved parameters of one request (SPEC §7
// "Parameters"): general keys, then the provider-specific table (keyed by
// the API family, or the entry's name) winning, as Flemma merges them.
type params struct {
	raw            map[string]any
	MaxTokens      int
	Temperature    *float64
	CacheRetention string // none | short | long
	Foreign        string // preserve | drop
	Thinking       thinking
}

// thinking is the resolved reasoning request (Flemma's resolve_thinking).
type thinking struct {
	Enabled  bool
	Explicit bool   // turned off on purpose (OpenAI then sends effort "none")
	Budget   int    // budget models
	Level    string // minimal … max
	Effort   string // mapped effort for the model ("" when it has none)
}

func resolveParams(family, entry, model string, raw map[string]any, info *ModelInfo) (params, error) {
	flat := flatParams(family, entry, raw)
	p := params{raw: flat, CacheRetention: "short", Foreign: "preserve"}
	var err error
	if p.MaxTokens, err = resolveMaxTokens(flat["max_tokens"], info); err != nil {
		return p, err
	}
	if t, ok := flat["temperature"]; ok && t != nil {
		f, ok := number(t)
		if !ok {
			return p, fmt.Errorf("temperature must be a number, not %v", t)
		}
		p.Temperature = &f
	}
	if c, ok := flat["cache_retention"].(string); ok && c != "" {
		switch c {
		case "none", "short", "long":
			p.CacheRetention = c
		default:
			return p, fmt.Errorf("cache_retention must be none, short or long, not %q", c)
		}
	}
	level := flat["thinking"]
	if _, set := flat["thinking"]; !set {
		level = DefaultThinking
	}
	if t, ok := level.(map[string]any); ok {
		if f, ok := t["foreign"].(string); ok {
			p.Foreign = f
		}
		level = t["level"]
	}
	if f, ok := flat["thinking_foreign"].(string); ok {
		p.Foreign = f
	}
	if p.Foreign == "text" {
		p.Foreign = "preserve"
	}
	if p.Foreign != "preserve" && p.Foreign != "drop" {
		return p, fmt.Errorf("thinking.foreign must be preserve or drop, not %q", p.Foreign)
	}
	if p.Thinking, err = resolveThinking(family, level, flat, info); err != nil {
		return p, err
	}
	return p, nil
}

func resolveMaxTokens(v any, info *ModelInfo) (int, error) {
	if v == nil {
		v = DefaultMaxTokens
	}
	if s, ok := v.(string); ok {
		pct, isPct := strings.CutSuffix(s, "%")
		n, err := strconv.Atoi(pct)
		if !isPct || err != nil || n <= 0 {
			return 0, fmt.Errorf("max_tokens must be a number or a percentage like \"50%%\", not %q", s)
		}
		if info == nil || info.MaxTokens == 0 {
			return fallbackMax, nil
		}
		return max(info.MaxTokens*n/100, minMaxTokens), nil
	}
	f, ok := number(v)
	if !ok || f < 1 {
		return 0, fmt.Errorf("max_tokens must be a positive number or a percentage, not %v", v)
	}
	n := int(f)
	if info != nil && info.MaxTokens > 0 && n > info.MaxTokens {
		n = info.MaxTokens
	}
	return n, nil
}

var levels = map[string]bool{"minimal": true, "low": true, "medium": true, "high": true, "max": true}

// resolveThinking follows Flemma's resolve_thinking: budget providers
// (Anthropic, Gemini) get a budget and, where the model maps levels, an
// effort; OpenAI gets a reasoning effort.
func resolveThinking(family string, level any, flat map[string]any, info *ModelInfo) (thinking, error) {
	if s, ok := level.(string); ok {
		switch s {
		case "off", "false", "none":
			level = false
		default:
			if !levels[s] {
				return thinking{}, fmt.Errorf("thinking must be minimal, low, medium, high, max, a token budget or false, not %q", s)
			}
		}
	}
	mapEffort := func(l string) string {
		if info != nil && info.EffortMap != nil {
			return info.EffortMap[l]
		}
		return ""
	}
	if family == "openai" {
		if r, ok := flat["reasoning"].(string); ok && r != "" {
			return thinking{Enabled: true, Level: r, Effort: cmp.Or(mapEffort(r), r)}, nil
		}
		switch l := level.(type) {
		case nil:
			return thinking{}, nil
		case bool:
			return thinking{Explicit: !l}, nil
		case string:
			return thinking{Enabled: true, Level: l, Effort: cmp.Or(mapEffort(l), l)}, nil
		}
		if n, ok := number(level); ok {
			if n <= 0 {
				return thinking{Explicit: true}, nil
			}
			l := budgetLevel(int(n))
			return thinking{Enabled: true, Level: l, Effort: cmp.Or(mapEffort(l), l)}, nil
		}
		return thinking{}, fmt.Errorf("thinking must be a level, a token budget or false, not %v", level)
	}
	lo, hi := 1, 0
	if family == "anthropic" {
		lo = 1024
	}
	if info != nil {
		if info.MinThinkingBudget > 0 {
			lo = info.MinThinkingBudget
		}
		hi = info.MaxThinkingBudget
	}
	clamp := func(b int) int {
		b = max(b, lo)
		if hi > 0 {
			b = min(b, hi)
		}
		return b
	}
	if raw, ok := flat["thinking_budget"]; ok && raw != nil {
		n, ok := number(raw)
		if !ok || n <= 0 {
			return thinking{}, nil
		}
		b := clamp(int(n))
		l := budgetLevel(b)
		return thinking{Enabled: true, Budget: b, Level: l, Effort: mapEffort(l)}, nil
	}
	switch l := level.(type) {
	case nil, bool:
		return thinking{Explicit: l == false}, nil
	case string:
		return thinking{Enabled: true, Budget: clamp(levelBudget(l, info)), Level: l, Effort: mapEffort(l)}, nil
	}
	if n, ok := number(level); ok {
		if n <= 0 {
			return thinking{Explicit: true}, nil
		}
		b := clamp(int(n))
		l := budgetLevel(b)
		return thinking{Enabled: true, Budget: b, Level: l, Effort: mapEffort(l)}, nil
	}
	return thinking{}, fmt.Errorf("thinking must be a level, a token budget or false, not %v", level)
}

func levelBudget(level string, info *ModelInfo) int {
	if info != nil && info.ThinkingBudgets != nil {
		if level == "max" {
			if info.MaxThinkingBudget > 0 {
				return info.MaxThinkingBudget
			}
			if b, ok := info.ThinkingBudgets["high"]; ok {
				return b
			}
			return 32768
		}
		if b, ok := info.ThinkingBudgets[level]; ok {
			return b
		}
	}
	return map[string]int{"minimal": 128, "low": 2048, "medium": 8192, "high": 16384, "max": 32768}[level]
}

func budgetLevel(b int) string {
	switch {
	case b <= 256:
		return "minimal"
	case b <= 4096:
		return "low"
	case b <= 12288:
		return "medium"
	case b <= 24576:
		return "high"
	}
	return "max"
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

func (p params) str(key string) string {
	s, _ := p.raw[key].(string)
	return s
}

// flatParams is the general keys with the family's, then the entry's,
// table over them (the specific one wins, as Flemma merges them).
func flatParams(family, entry string, raw map[string]any) map[string]any {
	flat := map[string]any{}
	for k, v := range raw {
		if _, isTable := v.(map[string]any); isTable && (families[k] || k == entry || k == "gemini") {
			continue
		}
		flat[k] = v
	}
	for _, name := range []string{family, entry} {
		if specific, ok := raw[name].(map[string]any); ok {
			for k, v := range specific {
				flat[k] = v
			}
		}
	}
	return flat
}

package provider

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// Price is USD per million tokens.
type Price struct {
	Input      float64  `json:"input"`
	Output     float64  `json:"output"`
	CacheRead  *float64 `json:"cacheRead,omitempty"`
	CacheWrite *float64 `json:"cacheWrite,omitempty"`
}

// ModelInfo is what chatls knows of a model: limits, prices, thinking.
type ModelInfo struct {
	ContextWindow     int               `json:"contextWindow,omitempty"`
	MaxTokens         int               `json:"maxTokens,omitempty"`
	Price             *Price            `json:"price,omitempty"`
	ThinkingBudgets   map[string]int    `json:"thinkingBudgets,omitempty"`
	MinThinkingBudget int               `json:"minThinkingBudget,omitempty"`
	MaxThinkingBudget int               `json:"maxThinkingBudget,omitempty"`
	EffortMap         map[string]string `json:"effortMap,omitempty"`
	AdaptiveThinking  bool              `json:"adaptiveThinking,omitempty"`
	ReasoningEffort   bool              `json:"reasoningEffort,omitempty"`
}

type familyModels struct {
	Default string               `json:"default"`
	Models  map[string]ModelInfo `json:"models"`
}

// models.json is the built-in table (data, not code): Flemma 0.11's model
// registry, prices in USD per million tokens. Settings override entries.
//
//go:embed models.json
var modelsJSON []byte

var builtinModels = sync.OnceValue(func() map[string]familyModels {
	var m map[string]familyModels
	if err := json.Unmarshal(modelsJSON, &m); err != nil {
		panic("provider/models.json: " + err.Error())
	}
	return m
})

// DefaultModel is a family's default model ("" when none).
func DefaultModel(family string) string { return builtinModels()[family].Default }

// LookupModel finds a model of a family in the built-in table.
func LookupModel(family, model string) (ModelInfo, bool) {
	info, ok := builtinModels()[family].Models[model]
	return info, ok
}

// Cost is the USD price of the usage, with cached tokens at their own
// prices (cache reads and writes at the input price when the table has
// none); ok is false when the model's price is unknown.
func Cost(p *Price, u Usage) (usd float64, ok bool) {
	if p == nil {
		return 0, false
	}
	read, write := p.Input, p.Input
	if p.CacheRead != nil {
		read = *p.CacheRead
	}
	if p.CacheWrite != nil {
		write = *p.CacheWrite
	}
	total := float64(u.InputTokens)*p.Input + float64(u.OutputTokens+u.ThoughtTokens)*p.Output +
		float64(u.CacheReadTokens)*read + float64(u.CacheWriteTokens)*write
	return total / 1e6, true
}

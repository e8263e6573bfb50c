package session

import (
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/provider/usagelog"
)

// recordUsage writes the response's line of usage.jsonl.
func (s *Session) recordUsage(ds *Doc, req *provider.Request, chain *chainState, res provider.Result, outcome string) *float64 {
	e := usagelog.Entry{Time: time.Now().UTC(), URI: ds.uri, Chain: chain.id, Provider: req.Entry, Model: req.Model,
		InputTokens: res.Usage.InputTokens, OutputTokens: res.Usage.OutputTokens + res.Usage.ThoughtTokens,
		CacheReadTokens: res.Usage.CacheReadTokens, CacheWriteTokens: res.Usage.CacheWriteTokens,
		DurationMs: res.Duration.Milliseconds(), Attempts: res.Attempts, Outcome: outcome}
	if req.Info != nil {
		if usd, ok := provider.Cost(req.Info.Price, res.Usage); ok {
			e.CostUSD = &usd
		}
	}
	if s.usage == nil {
		return e.CostUSD
	}
	if err := s.usage.Append(e); err != nil {
		s.log.Warn("usage log write failed", zap.Error(err))
	}
	return e.CostUSD
}

// usageTotals answers chatls.usage: the document's and the session's
// totals from usage.jsonl.
func (s *Session) usageTotals(ds *Doc) (any, error) {
	if s.usage == nil {
		return nil, fmt.Errorf("the usage log is not open")
	}
	doc, err := s.usage.Sum(func(e usagelog.Entry) bool { return e.URI == ds.uri && !e.Time.Before(s.started) })
	if err != nil {
		return nil, err
	}
	session, err := s.usage.Sum(func(e usagelog.Entry) bool { return !e.Time.Before(s.started) })
	if err != nil {
		return nil, err
	}
	return map[string]any{"document": doc, "session": session, "file": s.usage.Path()}, nil
}

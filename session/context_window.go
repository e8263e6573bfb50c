package session

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/contextwin"
	"github.com/chatls/chatls/provider"
)

// lastUsage is the newest answer of this session still in the document
// with the provider's count, where the estimate starts (nil: none, so the
// whole document is estimated).
func (s *Session) lastUsage(ds *Doc, doc *chatdoc.Document) *contextwin.LastUsage {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(ds.answers) - 1; i >= 0; i-- {
		a := ds.answers[i]
		if a.outcome != "ok" || !validAnswer(doc, a) {
			continue
		}
		u := a.usage
		return &contextwin.LastUsage{At: a.at,
			InputTokens: max(0, u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens+u.OutputTokens+u.ThoughtTokens+changedBefore(a.at-a.countedAt))}
	}
	return nil
}

// changedBefore is what bytes added (> 0) or taken out (< 0) before the
// counted answer change its count, at 4 bytes a token: additions rounded
// up, removals down, so that the estimate errs high.
func changedBefore(bytes int) int {
	if bytes >= 0 {
		return (bytes + 3) / 4
	}
	return -(-bytes / 4)
}

// contextRefusal is why the request must not go out for the size of the
// model's window (SPEC §11), "" when it may: at 100% always; at
// context.warnAt when the autopilot would send it, so the user decides
// (compact, or send it themselves).
func (s *Session) contextRefusal(ds *Doc, doc *chatdoc.Document, req *provider.Request, ctx config.EffectiveContext, userStarted bool) string {
	window := contextWindow(req)
	if window <= 0 {
		return ""
	}
	s.mu.Lock()
	ds.requestWindow = window // the warning can show before any answer
	s.mu.Unlock()
	size := contextwin.Estimate(doc, s.lastUsage(ds, doc))
	switch contextwin.LevelAt(contextwin.Share(size.Tokens, window), ctx.WarnAt) {
	case contextwin.LevelOver:
		return contextwin.RefuseMessage(size.Tokens, window)
	case contextwin.LevelWarn:
		if !userStarted {
			return "the autopilot stopped: " + contextwin.WarnMessage(size.Tokens, window) + " Send again to go on anyway."
		}
	}
	return ""
}

// contextDiagnostic warns on the `@You:` marker once the next request
// would reach context.warnAt of the model's window (SPEC §11). The window
// is the one of this session's newest answer: before any, the model the
// document will use is not resolved on a keystroke, and the send itself
// checks (contextRefusal).
func (s *Session) contextDiagnostic(ds *Doc, doc *chatdoc.Document, ctx config.EffectiveContext) []chatdoc.Diagnostic {
	window := s.lastWindow(ds, doc)
	if window <= 0 {
		return nil
	}
	size := contextwin.Estimate(doc, s.lastUsage(ds, doc))
	msg := ""
	switch contextwin.LevelAt(contextwin.Share(size.Tokens, window), ctx.WarnAt) {
	case contextwin.LevelWarn:
		msg = contextwin.WarnMessage(size.Tokens, window)
	case contextwin.LevelOver:
		msg = contextwin.RefuseMessage(size.Tokens, window)
	default:
		return nil
	}
	return []chatdoc.Diagnostic{{Span: lastYouMarker(doc), Severity: chatdoc.SeverityWarning, Code: "context", Message: msg}}
}

// lastWindow is the context window of this session's newest answer still
// in the document, else of the last request built for it (a send refused
// for its size); 0: none known.
func (s *Session) lastWindow(ds *Doc, doc *chatdoc.Document) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(ds.answers) - 1; i >= 0; i-- {
		if a := ds.answers[i]; a.window > 0 && validAnswer(doc, a) {
			return a.window
		}
	}
	return ds.requestWindow
}

// contextShown is the next request's estimate in the status (chatls/status
// and every client's status line), from context.warnAt on.
type contextShown struct {
	Tokens int    `json:"tokens"` // the estimate of the next request
	Window int    `json:"window"` // the model's context window
	Level  string `json:"level"`  // "warn" (from context.warnAt) or "over" (refused)
	// Text is the status line's part: "context 86% of 1k: compact the
	// conversation".
	Text string `json:"text"`
}

// contextStatus is the next request's estimate for the status once it
// reaches context.warnAt of the window contextDiagnostic uses; nil below,
// or with no window known.
func (s *Session) contextStatus(ds *Doc, doc *chatdoc.Document) *contextShown {
	window := s.lastWindow(ds, doc)
	if window <= 0 {
		return nil
	}
	size := contextwin.Estimate(doc, s.lastUsage(ds, doc))
	c := &contextShown{Tokens: size.Tokens, Window: window}
	switch contextwin.LevelAt(contextwin.Share(size.Tokens, window), s.settings.effectiveFor(ds.path).Context.WarnAt) {
	case contextwin.LevelWarn:
		c.Level = "warn"
	case contextwin.LevelOver:
		c.Level = "over"
	default:
		return nil
	}
	c.Text = "context " + contextwin.Meter(size.Tokens, window) + ": " + strings.ToLower(contextwin.ActionCompact[:1]) + contextwin.ActionCompact[1:]
	return c
}

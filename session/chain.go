package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/chatls/chatls/approval"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/provider"
)

// chainState is a chain of requests the user started in this session
// with an explicit send (SPEC §7 "When it sends"). Under Session.mu.
type chainState struct {
	id    string
	turns int // requests since the user's send
	// armed: the autopilot may send again once the results of the last
	// response are written. A cancel, an error or an answer without tool
	// calls disarms it.
	armed bool
	// asked counts, per call (tool and input), the consecutive responses
	// that asked for it; held are the tool IDs the loop guard keeps pending.
	asked map[string]int
	held  map[string]bool
}

// chainFor is the chain a send belongs to: a new one when the user sends.
func (s *Session) chainFor(ds *Doc, userStarted bool) *chainState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if userStarted || ds.chain == nil {
		ds.chain = &chainState{id: newChainID(), armed: true, asked: map[string]int{}, held: map[string]bool{}}
	}
	return ds.chain
}

func newChainID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// guardStopped begins every message of a guard that stopped the chain.
const guardStopped = "Autopilot stopped"

// Guarded says a guard stopped the chain (chatls send exits 3).
func (st Status) Guarded() bool { return strings.HasPrefix(st.Problem, guardStopped) }

// guard is why the chain may not send again ("" when it may): the turn
// limit, and the spending of the chain as usage.jsonl counts it.
func (s *Session) guard(c *chainState, limits config.EffectiveSend) string {
	s.mu.Lock()
	turns := c.turns
	s.mu.Unlock()
	if turns >= limits.MaxTurns {
		return fmt.Sprintf(guardStopped+" – exceeded %d consecutive turns.", limits.MaxTurns)
	}
	if s.usage == nil || turns == 0 {
		return ""
	}
	totals, err := s.usage.Chain(c.id)
	if err != nil {
		s.log.Warn("cannot read the usage log; the cost limit is not checked", zap.Error(err))
		return ""
	}
	if totals.CostUSD > limits.MaxCost {
		return fmt.Sprintf(guardStopped+" – this chain cost $%.2f, over the $%.2f limit.", totals.CostUSD, limits.MaxCost)
	}
	return ""
}

// afterResponse notes what a response asked for: the chain stays armed
// only while the model calls tools, and a call asked for a third time in
// a row is held for the user (the loop guard). Under Session.mu.
func (c *chainState) afterResponse(calls []*provider.ToolCall, ok bool) {
	if !ok || len(calls) == 0 {
		c.armed = false
	}
	asked := map[string]int{}
	for _, call := range calls {
		key := call.Name + "\x00" + call.Input
		asked[key] = c.asked[key] + 1
		if asked[key] >= 3 {
			c.held[call.ID] = true
		}
	}
	c.asked = asked
}

// disarm ends the document's chain: nothing sends by itself until the
// user sends again.
func (s *Session) disarm(ds *Doc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds.chain != nil {
		ds.chain.armed = false
	}
}

// heldByLoopGuard says whether the chain's loop guard holds the call.
func (s *Session) heldByLoopGuard(ds *Doc, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ds.chain != nil && ds.chain.held[id]
}

// loopGuarded turns an approval into a question for a call the model
// asked for a third time in a row (SPEC §7).
func loopGuarded(v approval.Verdict) approval.Verdict {
	if v.Decision != approval.Approve {
		return v
	}
	v.Steps = append(v.Steps, approval.Step{Resolver: "loop-guard", Priority: 25, Decision: approval.RequireApproval,
		Reason: "the model asked for the same call (tool and input) a third time in a row; asking instead"})
	v.Decision, v.Reason = approval.RequireApproval, "the same call a third time in a row (loop guard)"
	return v
}

// continueChain sends again when the chain is armed and the document is
// ready: the results of the last response are written (SPEC §7).
func (s *Session) continueChain(ds *Doc) {
	s.mu.Lock()
	c, busy := ds.chain, ds.send != nil
	armed := c != nil && c.armed && !busy && !ds.closed
	s.mu.Unlock()
	if !armed {
		return
	}
	doc, l := s.view(ds)
	if sendReadiness(doc, l, nil, nil) != "" {
		return
	}
	if err := s.startSend(s.baseCtx, ds, false); err != nil {
		s.disarm(ds)
		s.log.Info("autopilot did not send", zap.String("uri", ds.uri), zap.Error(err))
		reason := err.Error()
		var refused *RefusedError
		if errors.As(err, &refused) {
			reason = refused.Reason
		}
		s.sendDiagnostic(ds, reason)
	}
}

// stopChain disarms the chain and says why, in one step: a terminal that
// saw it disarmed without the reason took the chain for done (exit 0 where
// a guard stopped it).
func (s *Session) stopChain(ds *Doc, why string) {
	s.mu.Lock()
	ds.sendProblem = why
	if ds.chain != nil {
		ds.chain.armed = false
	}
	s.mu.Unlock()
	s.scheduleDiagnostics(ds)
}

// sendDiagnostic shows why a send stopped at the last @You: marker until
// the next pass.
func (s *Session) sendDiagnostic(ds *Doc, msg string) {
	s.mu.Lock()
	ds.sendProblem = msg
	s.mu.Unlock()
	s.scheduleDiagnostics(ds)
}

// sendProblemDiagnostic is the diagnostic of the last failed send.
func sendProblemDiagnostic(doc *chatdoc.Document, msg string) []chatdoc.Diagnostic {
	if msg == "" || doc.MessageCount() == 0 {
		return nil
	}
	return []chatdoc.Diagnostic{{Span: lastYouMarker(doc), Severity: chatdoc.SeverityWarning, Code: "send", Message: msg}}
}

// lastYouMarker is the `@You:` line the next send would send (the empty
// span at the top when there is none).
func lastYouMarker(doc *chatdoc.Document) chatdoc.Span {
	for i := doc.MessageCount() - 1; i >= 0; i-- {
		if m := doc.Message(i); m.Role == "You" {
			return m.MarkerSpan
		}
	}
	return chatdoc.Span{}
}

// Status is chatls.status: what the document waits for, whether an
// answer streams, and the chain — what a terminal driver (chatls send)
// needs to know when the agent is done.
type Status struct {
	cycle.Report
	// Waiting counts the calls that wait for the user (status=pending);
	// Pending also counts approved ones about to run.
	Waiting int `json:"waiting"`
	// AlreadyRan counts the placeholders of calls the journal says ran:
	// the next step writes their recorded result.
	AlreadyRan int         `json:"alreadyRan"`
	Sending    bool        `json:"sending"`
	Model      string      `json:"model,omitempty"`
	Chain      *chainShown `json:"chain,omitempty"`
	Problem    string      `json:"problem,omitempty"`
	// Retry is the retry the request in flight waits for.
	Retry string `json:"retry,omitempty"`
	// Usage is the last answer's, as its code lens shows it.
	Usage *usageShown `json:"usage,omitempty"`
	// Unsandboxed: the document's settings want the sandbox but
	// bubblewrap cannot start here (SPEC §5).
	Unsandboxed bool `json:"unsandboxed,omitempty"`
	// Jobs counts the background jobs running in this session (Flemma
	// 0.12): their results arrive in the document when they end.
	Jobs int `json:"jobs,omitempty"`
	// Context is the estimate of the next request against the model's
	// window once it reaches context.warnAt (SPEC §11); nil below.
	Context *contextShown `json:"context,omitempty"`
}

// usageShown is the last answer's usage in the status.
type usageShown struct {
	Text         string   `json:"text"`
	Model        string   `json:"model"`
	InputTokens  int      `json:"inputTokens"`
	OutputTokens int      `json:"outputTokens"`
	CostUSD      *float64 `json:"costUSD"`
	// ContextWindow is the model's window (0: unknown): InputTokens of
	// it is the share Text shows ("63% of 200k").
	ContextWindow int `json:"contextWindow,omitempty"`
}

type chainShown struct {
	ID    string `json:"id"`
	Armed bool   `json:"armed"`
	Turns int    `json:"turns"`
}

func (s *Session) Status(ds *Doc) Status {
	doc, l := s.view(ds)
	st := Status{Report: ds.cycleParts.Count(doc, l)}
	st.Waiting, st.AlreadyRan = waitingForUser(doc, l, s.ranHere(ds))
	st.Unsandboxed = s.sandboxKnownProblemFor(ds.path) != ""
	st.Context = s.contextStatus(ds, doc)
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds.send != nil {
		st.Sending, st.Model, st.Retry = true, ds.send.model, ds.send.retry
	}
	if n := len(ds.answers); n > 0 {
		a := ds.answers[n-1]
		st.Usage = &usageShown{Text: a.lensTitle(), Model: a.model, CostUSD: a.cost,
			InputTokens:  a.usage.InputTokens + a.usage.CacheReadTokens + a.usage.CacheWriteTokens,
			OutputTokens: a.usage.OutputTokens + a.usage.ThoughtTokens, ContextWindow: a.window}
	}
	if c := ds.chain; c != nil {
		st.Chain = &chainShown{ID: c.id, Armed: c.armed, Turns: c.turns}
	}
	st.Problem = ds.sendProblem
	st.Jobs = ds.runningJobs()
	return st
}

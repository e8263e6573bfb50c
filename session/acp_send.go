package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chatls/chatls/acp"
	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/internal/workdone"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/provider/usagelog"
)

// agentEntry is the document's provider when it is an external agent
// (type acp, SPEC §12); false for a model API, or when the provider cannot
// be chosen (buildRequest then says why).
func (s *Session) agentEntry(ds *Doc, doc *chatdoc.Document) (provider.Entry, bool) {
	eff := s.settings.effectiveFor(ds.path)
	entries, err := provider.Entries(eff.Providers)
	if err != nil {
		return provider.Entry{}, false
	}
	var ops []frontmatter.OptionOp
	if doc.Frontmatter != nil {
		ops = frontmatter.Evaluate(doc.Frontmatter).Options
	}
	sel, _, err := provider.Select(eff, entries, ops)
	if err != nil || sel.Entry.API != "acp" {
		return provider.Entry{}, false
	}
	return sel.Entry, true
}

// agentPrompt is the newest @You: message as the agent's prompt: its text
// (the results chatls wrote into it left out: they are the agent's own)
// and its file references as resource links. The agent owns its history,
// so nothing earlier goes with it.
func agentPrompt(ds *Doc, doc *chatdoc.Document) ([]acp.Block, error) {
	m := doc.Message(doc.MessageCount() - 1)
	start := m.MarkerSpan.End
	var text strings.Builder
	for _, r := range m.ToolResults {
		if r.Span.Start > start {
			text.WriteString(doc.Slice(start, r.Span.Start))
		}
		start = max(start, r.Span.End)
	}
	if start < m.Span.End {
		text.WriteString(doc.Slice(start, m.Span.End))
	}
	var blocks []acp.Block
	if t := strings.TrimSpace(text.String()); t != "" {
		blocks = append(blocks, acp.Block{Text: t})
	}
	home, _ := os.UserHomeDir()
	dir := filepath.Dir(ds.path)
	for _, ref := range m.FileRefs() {
		if p := chatdoc.ResolveFileRef(dir, home, ref.Path); filepath.IsAbs(p) {
			blocks = append(blocks, acp.Block{Path: p, MimeType: ref.MIME})
		}
	}
	if len(blocks) == 0 {
		return nil, errors.New("nothing to send: write your question under the last @You:")
	}
	return blocks, nil
}

// startAgentSend is startSend for an external agent: the prompt goes to
// the document's agent, started on the first send, and its turn streams
// into the document.
func (s *Session) startAgentSend(sendCtx context.Context, ds *Doc, doc *chatdoc.Document, send *sendState, release func(), chain *chainState, e provider.Entry) error {
	blocks, err := agentPrompt(ds, doc)
	if err != nil {
		release()
		return s.refuseSend(err.Error())
	}
	st := newStreamState(s.latest(ds))
	sent := agentSentTexts(doc)
	s.mu.Lock()
	send.model = e.Name
	ds.stream = st
	ds.agentSent = sent
	ds.sendProblem = ""
	chain.turns++
	s.mu.Unlock()
	s.scheduleDiagnostics(ds)
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		s.agentTurn(sendCtx, ds, st, send, e, blocks, chain)
	}()
	return nil
}

// agentTurn runs one prompt turn: the agent's updates go into the document
// as they arrive, its permission requests become placeholders (agentClient),
// and the turn ends with `@You:` — after an abort marker when the user
// cancelled or the agent failed (it exited, broke the protocol, went
// silent): the next send starts it again.
func (s *Session) agentTurn(ctx context.Context, ds *Doc, st *streamState, send *sendState, e provider.Entry, blocks []acp.Block, chain *chainState) {
	defer close(send.done)
	defer send.lock.Release()
	began := time.Now()
	stop := make(chan struct{})
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		s.writeStream(ds, st, stop)
	}()
	token := fmt.Sprintf("chatls/send/%s", time.Now().Format("150405.000"))
	progress := workdone.New(s.editor, token, "chatls: "+e.Name)
	removeCancel := s.progressCancels.Add(token, func() { send.cancel(errCancelledByUser) })
	progress.Begin("starting the agent", true)

	a := s.agents.forDoc(ds)
	// The agent's tool uses and results are written as the document
	// writes its headers, as a model's are (SPEC §1 "Compact headers").
	last := s.latest(ds)
	ans := newAgentAnswer(tailOf(last), last.HeaderGap() != "")
	var results sync.WaitGroup
	writeResults := func(out agentOut) {
		if len(out.results) == 0 {
			return
		}
		results.Add(1)
		go func() {
			defer results.Done()
			s.writeAgentResults(ds, out.results)
		}()
	}
	s.mu.Lock()
	st.push(ans.begin())
	a.answer, a.stream, a.allowed = ans, st, map[string]bool{}
	s.mu.Unlock()

	var usage provider.Usage
	var cost *float64
	var reason acp.StopReason
	agent, session, err := s.agentFor(ctx, ds, e)
	if err == nil {
		progress.Report("the agent is working")
		reason, err = agent.Prompt(ctx, session, blocks, func(u acp.Update) {
			if u.Kind == acp.UpdateUsage && u.Usage != nil {
				agentUsage(u.Usage, &usage, &cost)
				return
			}
			s.mu.Lock()
			out := ans.add(u)
			st.push(out.text)
			s.mu.Unlock()
			writeResults(out)
		})
	}
	close(send.stopped)
	removeCancel()

	outcome, abort := usagelog.OK, ""
	switch {
	case err == nil && reason == acp.StopCancelled, err != nil && (errors.Is(context.Cause(ctx), errCancelledByUser) || ctx.Err() != nil):
		outcome, abort = usagelog.Cancelled, chatdoc.AbortedByUser
	case err != nil:
		outcome, abort = usagelog.Error, oneLine(err.Error())
	case reason == acp.StopRefusal:
		s.showMessage(MessageWarning, "chatls: the agent refused to go on with this prompt")
	case reason == acp.StopMaxTokens || reason == acp.StopMaxTurnRequests:
		s.showMessage(MessageWarning, "chatls: the agent stopped: "+string(reason))
	}
	content := ans.Content()
	s.mu.Lock()
	a.answer, a.stream, a.allowed = nil, nil, nil
	var out agentOut
	if outcome == usagelog.OK || content {
		out = ans.final(abort)
		st.end(out.text)
	}
	s.mu.Unlock()
	writeResults(out)
	close(stop)
	<-writer
	results.Wait()
	if outcome != usagelog.OK && !content {
		s.removeHeader(ds, st)
	}
	if outcome == usagelog.Error {
		s.showMessage(MessageError, "chatls: "+e.Name+": "+err.Error())
		s.sendDiagnostic(ds, e.Name+": "+err.Error())
	}
	progress.End(outcome)
	req := &provider.Request{API: "acp", Entry: e.Name, Model: e.Name}
	res := provider.Result{Usage: usage, Duration: time.Since(began), Attempts: 1, Stop: string(reason)}
	if logged := s.recordUsage(ds, req, chain, res, outcome); logged != nil {
		cost = logged
	}
	send.lock.Release()
	s.mu.Lock()
	if at := strings.Index(st.headerText, assistantMarker); st.header >= 0 && at >= 0 && (outcome == usagelog.OK || content) {
		ds.answers = append(ds.answers, &answerRecord{at: st.header + at, entry: e.Name, model: e.Name, usage: usage,
			cost: cost, duration: res.Duration, attempts: 1, chain: chain.id, outcome: outcome})
	}
	ds.send, ds.stream = nil, nil
	chain.afterResponse(nil, false) // the agent ran its own tools: nothing for the autopilot to continue
	s.mu.Unlock()
	if outcome == usagelog.Cancelled {
		s.disarm(ds)
	}
	s.scheduleDiagnostics(ds)
	s.editor.RefreshHints()
	ds.wake()
}

// agentUsage adds what the agent reports: tokens with the prompt's answer,
// the cost (USD) with usage_update.
func agentUsage(u *acp.Usage, usage *provider.Usage, cost **float64) {
	if u.InputTokens+u.OutputTokens+u.CacheReadTokens+u.CacheWriteTokens > 0 {
		*usage = provider.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, ThoughtTokens: u.ThoughtTokens}
	}
	if u.Currency == "USD" && u.Cost > 0 {
		c := u.Cost
		*cost = &c
	}
}

// writeAgentResults writes results into the blocks already placed for
// them (located by tool ID), waiting for a block that is still on its way
// into the document.
func (s *Session) writeAgentResults(ds *Doc, results map[string]cycle.Result) {
	deadline := time.Now().Add(EditReplyTimeout)
	for len(results) > 0 && time.Now().Before(deadline) {
		s.mu.Lock()
		changed := ds.changed
		s.mu.Unlock()
		s.editDocument(ds, "chatls: the agent's tool result", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			ready := map[string]cycle.Result{}
			for id, r := range results {
				if res := doc.ToolResult(id); res != nil && res.IsPlaceholder() {
					ready[id] = r
				}
			}
			return cycle.ResultEdits(doc, ready)
		})
		doc := s.latest(ds)
		for id := range results {
			if res := doc.ToolResult(id); res != nil && !res.IsPlaceholder() {
				delete(results, id)
			}
		}
		if len(results) == 0 {
			return
		}
		select {
		case <-changed:
		case <-ds.done:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

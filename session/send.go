package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/cycle"
	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/internal/workdone"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/provider/usagelog"
	"github.com/chatls/chatls/tools"
)

// sendState is the request in flight for a document.
type sendState struct {
	cancel context.CancelCauseFunc
	model  string
	// stopped is closed once the provider's request has ended; done once
	// the answer's last text is in the document too.
	stopped, done chan struct{}
	// lock is the file's send lock, held while the request runs.
	lock *docfile.Lock
	// retry is the retry the request waits for ("Overloaded; retrying in
	// 1.0 s (1/4)"), "" once content flows; under Session.mu.
	retry string
}

// errCancelledByUser is the cause of a cancel by command, progress or close
// (the one cancel error, tools.ErrCancelled).
var errCancelledByUser = tools.ErrCancelled

// refuseSend is a send's refusal: shown, and answered (LSP: RequestFailed).
func (s *Session) refuseSend(reason string) error {
	s.showMessage(MessageWarning, "chatls: "+reason)
	return &RefusedError{Reason: reason}
}

// sendReadiness is why the document cannot be sent now ("" when it can).
// ran says which calls the journal knows already ran (nil: none).
func sendReadiness(doc *chatdoc.Document, l *cycle.Ledger, keys cycle.Keys, ran func(id string) bool) string {
	r := cycle.Count(doc, l)
	waiting, alreadyRan := waitingForUser(doc, l, ran)
	switch {
	case alreadyRan > 0:
		return strconv.Itoa(alreadyRan) + " tool call(s) already ran: " + keys.Do(cycle.KeyAdvance) + " to write the result"
	case waiting == 1:
		return "1 tool call waits for approval"
	case waiting > 1:
		return strconv.Itoa(waiting) + " tool calls wait for approval"
	case r.Pending > 0:
		return strconv.Itoa(r.Pending) + " approved tool call(s) have not run yet: " + keys.Do(cycle.KeyAdvance)
	case r.Running > 0:
		return strconv.Itoa(r.Running) + " tool call(s) are running"
	case !r.Ready:
		return "some tool calls have no result yet: " + keys.Do(cycle.KeyAdvance) + " first"
	}
	if doc.MessageCount() == 0 {
		return "nothing to send: write your question under @You:"
	}
	last := doc.Message(doc.MessageCount() - 1)
	if last.Role != "You" || !hasContent(doc, last) {
		return "nothing to send: write your question under the last @You:"
	}
	return ""
}

// waitingForUser counts the calls that wait for the user (status=pending
// placeholders nothing runs) and, apart, the empty placeholders of calls
// that already ran (ran, may be nil): approving those would not run them
// again, the next step writes what the journal recorded.
func waitingForUser(doc *chatdoc.Document, l *cycle.Ledger, ran func(id string) bool) (waiting, alreadyRan int) {
	doc.EachToolResultAsStored(func(i int, r *chatdoc.ToolResult) {
		if !r.IsPlaceholder() || doc.ToolResultIndex(r.ID) != i || l.Busy(r.ID) {
			return
		}
		switch {
		case ran != nil && ran(r.ID) && strings.TrimSpace(r.Content) == "":
			alreadyRan++
		case r.Status == chatdoc.StatusPending:
			waiting++
		}
	})
	return waiting, alreadyRan
}

// hasContent says whether a @You: message holds text, file references or
// results beyond its marker line.
func hasContent(doc *chatdoc.Document, m *chatdoc.Message) bool {
	if len(m.ToolResults) > 0 || len(m.FileRefs()) > 0 {
		return true
	}
	body := doc.Slice(m.MarkerSpan.End, m.Span.End)
	return strings.TrimSpace(body) != ""
}

// startSend checks the document, builds the request and starts streaming
// the answer; it returns once the request has started. userStarted begins
// a new chain (an explicit chatls.send or chatls.advance); otherwise the
// autopilot continues the current one.
func (s *Session) startSend(ctx context.Context, ds *Doc, userStarted bool) error {
	// Reserve the document first: the autopilot and a command must not both
	// pass the checks below.
	sendCtx, cancel := context.WithCancelCause(s.baseCtx)
	send := &sendState{cancel: cancel, stopped: make(chan struct{}), done: make(chan struct{})}
	s.mu.Lock()
	if ds.send != nil || ds.closed {
		s.mu.Unlock()
		cancel(nil)
		return s.refuseSend("a request is already in flight for this document (chatls.cancel stops it)")
	}
	ds.send = send
	s.mu.Unlock()
	release := func() {
		s.mu.Lock()
		if ds.send == send {
			ds.send = nil
		}
		s.mu.Unlock()
		cancel(nil)
		send.lock.Release()
		close(send.stopped)
		close(send.done)
	}
	// One chatls sends a file at a time: an editor's, a terminal's.
	path := ds.path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // the terminal locks the file a symlink points at
	}
	if path != "" && s.opts.SendLockHeld != path {
		lock, err := docfile.Acquire(filepath.Join(s.stateDir(), "locks"), path)
		if err != nil {
			release()
			return s.refuseSend(err.Error())
		}
		send.lock = lock
	}
	doc, l := s.view(ds)
	eff := s.settings.effectiveFor(ds.path)
	if why := sendReadiness(doc, l, eff.Keys, s.ranHere(ds)); why != "" {
		release()
		return s.refuseSend(why)
	}
	chain := s.chainFor(ds, userStarted)
	if why := s.guard(chain, eff.Send); why != "" {
		release()
		s.stopChain(ds, why)
		return s.refuseSend(why)
	}
	if e, ok := s.agentEntry(ds, doc); ok {
		return s.startAgentSend(sendCtx, ds, doc, send, release, chain, e) // an external agent (SPEC §12)
	}
	req, err := s.buildRequest(ctx, ds, doc)
	if err == nil && sendCtx.Err() != nil {
		err = errCancelledByUser
	}
	if err != nil {
		release()
		why := err.Error()
		if missing := (*provider.MissingKeyError)(nil); errors.As(err, &missing) {
			why += ": export it where chatls starts (restart the editor, or run chatls send again)"
		}
		s.sendDiagnostic(ds, why)
		return s.refuseSend(why)
	}
	if why := s.contextRefusal(ds, doc, req, eff.Context, userStarted); why != "" {
		release()
		s.stopChain(ds, why)
		return s.refuseSend(why)
	}
	st := newStreamState(s.latest(ds))
	s.mu.Lock()
	send.model = req.Model
	ds.stream = st
	ds.sendProblem = ""
	chain.turns++
	s.mu.Unlock()
	s.scheduleDiagnostics(ds) // the status says the model is answering
	s.tasks.Add(1)
	go func() {
		defer s.tasks.Done()
		s.stream(sendCtx, ds, st, send, req, chain)
	}()
	return nil
}

// stream runs one request: the answer goes into the document as it
// arrives, then the usage is recorded and the cycle takes over.
func (s *Session) stream(ctx context.Context, ds *Doc, st *streamState, send *sendState, req *provider.Request, chain *chainState) {
	defer close(send.done)
	defer send.lock.Release()
	stop := make(chan struct{})
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		s.writeStream(ds, st, stop)
	}()
	var resp chatdoc.Response
	var toolUses []*provider.ToolCall
	token := fmt.Sprintf("chatls/send/%s", time.Now().Format("150405.000"))
	progress := workdone.New(s.editor, token, "chatls: "+req.Model)
	removeCancel := s.progressCancels.Add(token, func() { send.cancel(errCancelledByUser) })
	first := "waiting for the model"
	if s.toolSet.Loading() {
		first = cycle.MsgWaitingTools
	}
	progress.Begin(first, true)
	defs, err := s.toolDefinitions(ctx, ds)
	req.Prompt.Tools = defs
	s.mu.Lock()
	if err == nil {
		// The answer's tool uses are written as the document writes its headers.
		resp.SpacedHeaders = ds.snap.HeaderGap() != ""
		st.push(resp.Start(tailOf(ds.snap)))
	}
	s.mu.Unlock()
	tokens := 0
	phase := "waiting"
	emit := func(ev provider.Event) {
		text := ""
		switch ev.Kind {
		case provider.EventText:
			text, phase = resp.Text(ev.Text), "writing"
			tokens += max(1, len(ev.Text)/4)
		case provider.EventThinkingDelta:
			phase = "thinking"
			tokens += max(1, len(ev.Text)/4)
		case provider.EventToolInputDelta:
			phase = "calling tools"
			tokens += max(1, len(ev.Text)/4)
		case provider.EventToolUse:
			text = resp.ToolUse(ev.Tool.Name, ev.Tool.ID, ev.Tool.Input)
			toolUses = append(toolUses, ev.Tool)
		case provider.EventThinking:
			resp.Thinking(chatdoc.ResponseThinking{Text: ev.Thinking.Text, Signature: ev.Thinking.Signature, Redacted: ev.Thinking.Redacted})
		case provider.EventUsage:
			if ev.Usage.OutputTokens > tokens {
				tokens = ev.Usage.OutputTokens
			}
		case provider.EventRetry:
			progress.Report(ev.Retry.Message())
			s.mu.Lock()
			send.retry = ev.Retry.Message()
			s.mu.Unlock()
			s.scheduleDiagnostics(ds) // the status line says it retries
			return
		case provider.EventNotice:
			s.showMessage(MessageWarning, "chatls: "+ev.Text) // a part of the document the request left out
			return
		case provider.EventIgnored:
			s.log.Debug("provider event ignored", zap.String("type", ev.Text))
			return
		}
		s.mu.Lock()
		retrying := send.retry != ""
		send.retry = ""
		if text != "" {
			st.push(text)
		}
		s.mu.Unlock()
		if retrying {
			s.scheduleDiagnostics(ds) // no longer retrying
		}
		progress.Report(fmt.Sprintf("%s… %s tokens", phase, shortCount(tokens)))
	}
	var result provider.Result
	if err == nil {
		result, err = provider.Send(ctx, req, emit)
	}
	close(send.stopped)
	removeCancel()

	outcome, abort := usagelog.OK, ""
	switch {
	case err == nil:
		if result.Stop == "max_tokens" || result.Stop == "max_output_tokens" || result.Stop == "length" || result.Stop == "MAX_TOKENS" {
			s.showMessage(MessageWarning, "chatls: the answer was cut at max_tokens; raise parameters.max_tokens to get the rest")
		}
	case errors.Is(context.Cause(ctx), errCancelledByUser) || ctx.Err() != nil:
		outcome, abort = usagelog.Cancelled, chatdoc.AbortedByUser
	default:
		outcome, abort = usagelog.Error, oneLine(err.Error())
	}
	if outcome == usagelog.OK || resp.Content() {
		s.mu.Lock()
		st.end(resp.End(abort))
		s.mu.Unlock()
	}
	close(stop)
	<-writer
	if outcome != usagelog.OK && !resp.Content() {
		s.removeHeader(ds, st)
	}
	if outcome == usagelog.Error {
		s.showMessage(MessageError, "chatls: "+req.Entry+": "+err.Error())
		s.sendDiagnostic(ds, req.Entry+": "+err.Error())
	}
	progress.End(outcome)
	cost := s.recordUsage(ds, req, chain, result, outcome)
	// The file's send lock goes before the document stops counting as
	// sending: a send started the moment after must not find it still held
	// and blame "another chatls".
	send.lock.Release()
	s.mu.Lock()
	if at := strings.Index(st.headerText, assistantMarker); st.header >= 0 && at >= 0 && (outcome == usagelog.OK || resp.Content()) {
		ds.answers = append(ds.answers, &answerRecord{at: st.header + at, countedAt: st.header + at, entry: req.Entry, model: req.Model, usage: result.Usage,
			cost: cost, duration: result.Duration, attempts: result.Attempts, chain: chain.id, outcome: outcome, window: contextWindow(req)})
	}
	ds.send, ds.stream = nil, nil
	chain.afterResponse(toolUses, outcome == usagelog.OK)
	s.mu.Unlock()
	if outcome == usagelog.Cancelled {
		s.disarm(ds)
	}
	s.scheduleDiagnostics(ds)
	s.editor.RefreshHints() // the new code lens
	ds.wake()
}

// removeHeader takes the `@Assistant:` line out again when a request
// failed before any content: the document is as it was.
func (s *Session) removeHeader(ds *Doc, st *streamState) {
	s.editDocument(ds, "chatls: no answer", func(doc *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		s.mu.Lock()
		at, text := st.header, st.headerText
		if st.keeper {
			text += st.newline
		}
		s.mu.Unlock()
		if at < 0 || at+len(text) > doc.Len() || doc.Slice(at, at+len(text)) != text {
			return nil, nil
		}
		return []chatdoc.TextEdit{{Span: chatdoc.Span{Start: at, End: at + len(text)}}}, nil
	})
}

// cancelSend stops the request in flight; false when there is none. It
// answers once the request has ended, not once the abort marker is in the
// document: a client blocked on this very request (eglot) sends no
// didChange until it has its answer.
func (s *Session) cancelSend(ds *Doc) bool {
	s.mu.Lock()
	send := ds.send
	s.mu.Unlock()
	if send == nil {
		return false
	}
	send.cancel(errCancelledByUser)
	<-send.stopped
	return true
}

// tailOf is the end of the document with "\n" line endings: what the
// `@Assistant:` line needs to follow a blank line.
func tailOf(doc *chatdoc.Document) string {
	n := doc.Len()
	return strings.ReplaceAll(doc.Slice(max(0, n-4), n), "\r\n", "\n")
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "-->", "- ->")
}

// contextWindow is the request's model's window (0: unknown).
func contextWindow(req *provider.Request) int {
	if req.Info == nil {
		return 0
	}
	return req.Info.ContextWindow
}

// shortCount is a token count as the progress shows it: 850, 1.2k.
func shortCount(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
}

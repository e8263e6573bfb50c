package session

import (
	"strings"

	"github.com/chatls/chatls/chatdoc"
)

// The diagnostic on an edit the agent does not see (SPEC §12): an agent
// keeps its own history, so text edited above the last answer does not
// reach it.
const (
	CodeAgentHistory = "agent-history"
	MsgAgentHistory  = "the agent keeps its own history: this edit does not reach it; " +
		"use “Branch conversation here” to start a new session from here"
)

// agentSentTexts are the texts of doc's messages as a prompt goes to the
// agent: what it knows of the document from then on.
func agentSentTexts(doc *chatdoc.Document) []string {
	out := make([]string, doc.MessageCount())
	for i := range out {
		sp := doc.MessageSpan(i)
		out[i] = doc.Slice(sp.Start, sp.End)
	}
	return out
}

// recallAgentHistory is, for a document opened with an agent session
// chatls remembers for it (it was sent before, SPEC §12), the texts of its
// messages as opened: what the agent knows of it until the next prompt.
// Off the read loop: it reads the state directory and the frontmatter.
func (s *Session) recallAgentHistory(ds *Doc, doc *chatdoc.Document) {
	if ds.path == "" {
		return
	}
	agentSessionsMu.Lock()
	_, known := s.agentSessions().read()[ds.journalKey()]
	agentSessionsMu.Unlock()
	if !known {
		return
	}
	e, ok := s.agentEntry(ds, doc)
	if !ok || s.agentSessions().get(ds.journalKey(), agentKey(e)) == "" {
		return
	}
	sent := agentSentTexts(doc)
	s.mu.Lock()
	if ds.agentSent == nil {
		ds.agentSent = sent
	}
	s.mu.Unlock()
	s.scheduleDiagnostics(ds)
}

// agentHistoryDiagnostics mark the messages above the last answer whose
// text differs from what they were when the last prompt went to the
// agent. Only those are compared: what follows them — the turn the agent
// wrote, the results chatls wrote, the approvals, the next question under
// the last @You: — is the normal flow. A document never sent to an agent
// (nor opened with an agent session chatls remembers for it), or whose
// provider is no longer one, gets none; whitespace at a message's ends
// does not count (chatls's own blank line before the answer).
func (s *Session) agentHistoryDiagnostics(ds *Doc, doc *chatdoc.Document) []chatdoc.Diagnostic {
	s.mu.Lock()
	sent := ds.agentSent
	s.mu.Unlock()
	if len(sent) == 0 {
		return nil
	}
	last := -1
	for i := doc.MessageCount() - 1; i >= 0; i-- {
		if doc.Message(i).Role == "Assistant" {
			last = i
			break
		}
	}
	var out []chatdoc.Diagnostic
	for i := 0; i < min(last, len(sent)); i++ {
		sp := doc.MessageSpan(i)
		text := doc.Slice(sp.Start, sp.End)
		if text == sent[i] || strings.TrimSpace(text) == strings.TrimSpace(sent[i]) {
			continue
		}
		out = append(out, chatdoc.Diagnostic{Span: changedLines(text, sent[i]).Shift(sp.Start),
			Severity: chatdoc.SeverityInformation, Code: CodeAgentHistory, Message: MsgAgentHistory})
	}
	if len(out) > 0 {
		if _, agent := s.agentEntry(ds, doc); !agent {
			return nil
		}
	}
	return out
}

// changedLines is the whole lines of text (offsets in it) that differ
// from old: from the line where they first differ to the end of the line
// where they last do; a deletion marks the line it left.
func changedLines(text, old string) chatdoc.Span {
	p := 0
	for p < len(text) && p < len(old) && text[p] == old[p] {
		p++
	}
	q := 0
	for q < len(text)-p && q < len(old)-p && text[len(text)-1-q] == old[len(old)-1-q] {
		q++
	}
	start := strings.LastIndexByte(text[:p], '\n') + 1
	end := max(len(text)-q, start)
	if end > start && text[end-1] == '\n' {
		end-- // a whole line inserted: that line
	}
	if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
		end += nl
	} else {
		end = len(text)
	}
	if end > start && text[end-1] == '\r' {
		end--
	}
	return chatdoc.Span{Start: start, End: end}
}

package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/contextwin"
)

// CodeContext is the code of the context window's warning on the `@You:`
// marker (SPEC §11), which the actions below answer.
const CodeContext = "context"

// The commands of the two actions; both take {uri}.
const (
	CommandCompact = "chatls.compact"
	CommandTrim    = "chatls.trim"
)

// ContextOffer is an action on the context window's warning or refusal:
// a command on the document, with the words every editor shows for it.
type ContextOffer struct {
	Title   string // contextwin.ActionTrim or contextwin.ActionCompact
	Command string // CommandTrim or CommandCompact
	// Preferred marks the cheapest offer that makes enough room: trimming
	// when it brings the next request below context.warnAt, else
	// compaction.
	Preferred bool
	// Diagnostic is the warning the offer answers.
	Diagnostic chatdoc.Diagnostic
}

// ContextOffers are the actions on the context warning under span
// (SPEC §11), cheapest first when it is enough: "Trim old tool outputs"
// when there are old outputs to trim, and "Compact the conversation"
// always (when nothing can move, the command says why, before any request).
func (s *Session) ContextOffers(ds *Doc, doc *chatdoc.Document, span chatdoc.Span) []ContextOffer {
	var warning *chatdoc.Diagnostic
	for _, d := range s.Diagnostics(ds, doc, false) {
		if d.Code == CodeContext && d.Span.Start <= span.End && span.Start <= d.Span.End {
			warning = &d
			break
		}
	}
	window := s.lastWindow(ds, doc)
	if warning == nil || window <= 0 {
		return nil
	}
	compact := ContextOffer{Title: contextwin.ActionCompact, Command: CommandCompact, Preferred: true, Diagnostic: *warning}
	eff := s.settings.effectiveFor(ds.path)
	t, err := contextwin.Trim(doc, contextwin.KeepTokens(window, eff.Context.KeepRecent), "NAME.archive-N.chat")
	if err != nil {
		return []ContextOffer{compact}
	}
	trim := ContextOffer{Title: contextwin.ActionTrim, Command: CommandTrim, Diagnostic: *warning}
	after := contextwin.Estimate(doc, s.lastUsage(ds, doc)).Without(t.Saved)
	if contextwin.LevelAt(contextwin.Share(after, window), eff.Context.WarnAt) == contextwin.LevelOK {
		trim.Preferred, compact.Preferred = true, false
		return []ContextOffer{trim, compact}
	}
	return []ContextOffer{compact, trim}
}

// Trimmed is what a trim did.
type Trimmed struct {
	Archive string // the archive's path, beside the document
	Trimmed int    // tool outputs trimmed
	Saved   int    // bytes the document lost (all of them in the archive)
}

// Trim is chatls.trim, "Trim old tool outputs" (SPEC §11): the finished
// tool outputs larger than 2 KB before the newest turns (context.keepRecent
// of the window) keep their first lines and a line naming the archive; the
// calls and their whole outputs go, verbatim, to NAME.archive-N.chat
// beside the document, written before the edit. One edit, which the
// editor's undo reverses; no model is asked.
func (s *Session) Trim(ctx context.Context, ds *Doc) (Trimmed, error) {
	s.mu.Lock()
	busy := ds.send != nil
	s.mu.Unlock()
	if busy {
		return Trimmed{}, s.refuseSend("an answer is streaming; trim once it ends (chatls.cancel stops it)")
	}
	if ds.path == "" {
		return Trimmed{}, &BadRequestError{Reason: "an unsaved document has no place for its archive: save it first"}
	}
	doc := s.latest(ds)
	keep := contextwin.KeepTokens(s.conversationWindow(ctx, ds, doc, nil), s.settings.effectiveFor(ds.path).Context.KeepRecent)
	if _, err := contextwin.Trim(doc, keep, ds.path); err != nil {
		return Trimmed{}, &BadRequestError{Reason: err.Error()}
	}
	archive, f, err := createSibling(ds.path, "archive")
	if err != nil {
		return Trimmed{}, err
	}
	trimmedLine := contextwin.TrimmedLine(filepath.Base(archive))
	var done Trimmed
	applied := s.editDocument(ds, "chatls: trim old tool outputs", func(now *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		if done.Trimmed > 0 && strings.Contains(now.Text(), trimmedLine) {
			return nil, nil // landed on an earlier try
		}
		if now.Text() != doc.Text() {
			return nil, errors.New("the document changed while it was trimmed; trim it again")
		}
		t, err := contextwin.Trim(now, keep, archive)
		if err != nil {
			return nil, err
		}
		if done.Trimmed == 0 { // the edit may be tried again: the archive is written once
			if err := writeArchive(f, archive, t.Archive); err != nil {
				return nil, err
			}
		}
		done = Trimmed{Archive: archive, Trimmed: t.Trimmed, Saved: t.Saved}
		return t.Edits, nil
	})
	f.Close()
	if !applied || done.Trimmed == 0 {
		os.Remove(archive) // nothing left the document: nothing to keep
		return Trimmed{}, errors.New("the document was not trimmed: it changed meanwhile, or the editor refused the edit")
	}
	return done, nil
}

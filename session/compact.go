package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/contextwin"
	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/provider"
	"github.com/chatls/chatls/provider/usagelog"
)

// unknownWindow is the window assumed for a model the table does not
// know, for how much compaction keeps: a common size today.
const unknownWindow = 128000

// Compacted is what a compaction did.
type Compacted struct {
	Archive string // the archive's path, beside the document
	Moved   int    // messages moved into it
}

// Compact is chatls.compact (SPEC §11): the messages before the cut move,
// verbatim, into NAME.archive-N.chat beside the document, and one `@You:`
// message replaces them — the compacted line and the summary the model
// wrote of them — as one edit the editor can undo. A failed summary
// request, or a document changed while the model wrote, changes nothing.
func (s *Session) Compact(ctx context.Context, ds *Doc) (Compacted, error) {
	s.mu.Lock()
	busy := ds.send != nil
	s.mu.Unlock()
	if busy {
		return Compacted{}, s.refuseSend("an answer is streaming; compact once it ends (chatls.cancel stops it)")
	}
	if ds.path == "" {
		return Compacted{}, &BadRequestError{Reason: "an unsaved document has no place for its archive: save it first"}
	}
	doc := s.latest(ds)
	eff := s.settings.effectiveFor(ds.path)
	req, err := s.buildRequestFor(ctx, ds, doc, eff.Context.SummaryModel)
	if err != nil {
		return Compacted{}, err
	}
	// The cut keeps a share of the conversation's window; the summary
	// request must fit the summary model's.
	var own *provider.Request
	if eff.Context.SummaryModel == "" {
		own = req
	}
	keep := contextwin.KeepTokens(s.conversationWindow(ctx, ds, doc, own), eff.Context.KeepRecent)
	cut, err := contextwin.CutPoint(doc, keep)
	if err != nil {
		return Compacted{}, &BadRequestError{Reason: err.Error()}
	}
	window := contextWindow(req)
	if window <= 0 {
		window = unknownWindow
	}
	summary, err := s.summarize(ctx, ds, req, contextwin.SummaryRequest(doc, cut, window/2))
	if err != nil {
		return Compacted{}, fmt.Errorf("the summary request failed, nothing changed: %w", err)
	}
	archive, f, err := createSibling(ds.path, "archive")
	if err != nil {
		return Compacted{}, err
	}
	var done Compacted
	applied := s.editDocument(ds, "chatls: compact the conversation", func(now *chatdoc.Document) ([]chatdoc.TextEdit, error) {
		if done.Moved > 0 && strings.Contains(now.Text(), contextwin.CompactedLine(done.Moved, filepath.Base(archive))) {
			return nil, nil // landed on an earlier try
		}
		if now.Text() != doc.Text() {
			return nil, errors.New("the document changed while the summary was written; compact it again")
		}
		c, err := contextwin.Compact(now, cut, archive, summary)
		if err != nil {
			return nil, err
		}
		if done.Moved == 0 { // the edit may be tried again: the archive is written once
			if err := writeArchive(f, archive, c.Archive); err != nil {
				return nil, err
			}
		}
		done = Compacted{Archive: archive, Moved: c.Moved}
		return []chatdoc.TextEdit{c.Edit}, nil
	})
	f.Close()
	if !applied || done.Moved == 0 {
		os.Remove(archive) // nothing left the document: nothing to keep
		return Compacted{}, errors.New("the document was not compacted: it changed meanwhile, or the editor refused the edit")
	}
	return done, nil
}

// createSibling creates the first free NAME.KIND-N.chat beside the
// document (an archive, a branch), exclusively: two never share one.
func createSibling(docPath, kind string) (string, *os.File, error) {
	for range 100 {
		name := docfile.SiblingName(docPath, kind, func(p string) bool { _, err := os.Lstat(p); return err == nil })
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return name, f, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", nil, fmt.Errorf("cannot create the %s beside %s: %w", kind, filepath.Base(docPath), err)
		}
	}
	return "", nil, fmt.Errorf("cannot find a free %s name beside %s", kind, docPath)
}

// summarize sends the summary request (one user message, no tools) to the
// document's model or context.summaryModel and returns its text. Its usage
// is recorded in the current chain, so send.maxCost counts it.
func (s *Session) summarize(ctx context.Context, ds *Doc, req *provider.Request, text string) (string, error) {
	r := *req
	r.Prompt = &provider.Prompt{Messages: []provider.Message{{Role: "user", Parts: []provider.Part{{Kind: provider.PartText, Text: text}}}}}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	var b strings.Builder
	res, err := provider.Send(ctx, &r, func(e provider.Event) {
		if e.Kind == provider.EventText {
			b.WriteString(e.Text)
		}
	})
	outcome := usagelog.OK
	if err != nil {
		outcome = usagelog.Error
	}
	s.recordUsage(ds, &r, s.summaryChain(ds), res, outcome)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", errors.New("the model wrote an empty summary")
	}
	return strings.TrimSpace(b.String()), nil
}

// writeArchive writes an archive's bytes and syncs them: the document
// loses them only once they are on disk.
func writeArchive(f *os.File, path string, data []byte) error {
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// conversationWindow is the context window of the document's model: its
// newest answer's, else the one of req (built for the document's model;
// nil: built here), else unknownWindow. Compaction and trimming keep
// context.keepRecent of it.
func (s *Session) conversationWindow(ctx context.Context, ds *Doc, doc *chatdoc.Document, req *provider.Request) int {
	if w := s.lastWindow(ds, doc); w > 0 {
		return w
	}
	if req == nil {
		req, _ = s.buildRequest(ctx, ds, doc)
	}
	if req != nil && contextWindow(req) > 0 {
		return contextWindow(req)
	}
	return unknownWindow
}

// summaryChain is the chain a summary request counts in, for
// send.maxCost: the document's current one. Without one it starts a
// chain that is not armed, so the compacted document is not sent by the
// autopilot: the summary is the user's to read first.
func (s *Session) summaryChain(ds *Doc) *chainState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ds.chain == nil {
		ds.chain = &chainState{id: newChainID(), asked: map[string]int{}, held: map[string]bool{}}
	}
	return ds.chain
}

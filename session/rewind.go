package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/rewind"
	"github.com/chatls/chatls/tools"
)

// The titles of the rewind actions (SPEC §10), exactly.
const (
	RewindFilesTitle = "Rewind files to before this call"
	RewindAllTitle   = "Rewind conversation and files to here"
	BranchTitle      = "Branch conversation here"
	UndoRewindTitle  = "Undo rewind"
)

// The rewind commands (workspace/executeCommand, docs/lsp.md).
const (
	CommandRewind     = "chatls.rewind"     // {uri, id, message?, conversation?, overwrite?}
	CommandBranch     = "chatls.branch"     // {uri, message}
	CommandUndoRewind = "chatls.undoRewind" // {uri, overwrite?}
)

// RewindOffer is one rewind action at a place of a document: a command
// with its arguments besides the document's URI.
type RewindOffer struct {
	Title   string
	Command string
	// ID is the call rewound to; Message the index of the message the
	// conversation is cut before (or branched at).
	ID           string
	Message      int
	Conversation bool
	Overwrite    bool
	// Disabled is why the action cannot be taken (a call on a remote
	// target): shown, with no command.
	Disabled string
}

// rewindPlace is where rewind actions are offered: a tool use, or a
// message's marker line. msg is the message cut before; use is the tool
// use at the place (nil on a marker).
type rewindPlace struct {
	msg int
	use *chatdoc.ToolUse
}

// placeAt finds the tool use or marker line at offset.
func placeAt(doc *chatdoc.Document, offset int) (rewindPlace, bool) {
	i := doc.MessageIndexAt(offset)
	msgs := doc.Messages()
	if i < 0 || i >= len(msgs) {
		return rewindPlace{}, false
	}
	m := msgs[i]
	for _, u := range m.ToolUses {
		if u.Span.Contains(offset) {
			return rewindPlace{msg: i, use: u}, true
		}
	}
	for _, r := range m.ToolResults {
		if u := doc.ToolUse(r.ID); r.Span.Contains(offset) && u != nil {
			return rewindPlace{msg: u.Message, use: u}, true
		}
	}
	if m.MarkerSpan.Contains(offset) {
		return rewindPlace{msg: i}, true
	}
	return rewindPlace{}, false
}

// checkpointed is the document's calls that have a checkpoint, by ID, and
// its last rewind ("" if none). Calls of a rewind are not in it.
func (s *Session) checkpointed(ctx context.Context, ds *Doc) (map[string]rewind.Call, string, error) {
	store, err := s.checkpointStore()
	if err != nil {
		return nil, "", err
	}
	calls, err := store.List(ctx, ds.path)
	if err != nil {
		return nil, "", err
	}
	byID, last := map[string]rewind.Call{}, ""
	for _, c := range calls {
		if c.RewindTo != "" {
			last = c.ID
			continue
		}
		byID[c.ID] = c
	}
	return byID, last, nil
}

// rewindTarget is the call a rewind at the place goes back to before: the
// tool use's own, or on a marker the first checkpointed call from that
// message on.
func rewindTarget(doc *chatdoc.Document, p rewindPlace, calls map[string]rewind.Call) string {
	if p.use != nil {
		if _, ok := calls[p.use.ID]; ok {
			return p.use.ID
		}
		return ""
	}
	msgs := doc.Messages()
	for i := p.msg; i < len(msgs); i++ {
		for _, u := range msgs[i].ToolUses {
			if _, ok := calls[u.ID]; ok {
				return u.ID
			}
		}
	}
	return ""
}

// RewindOffers are the rewind actions at offset in doc (SPEC §10), in the
// order a menu shows them: nothing off a tool use or a marker line.
func (s *Session) RewindOffers(ctx context.Context, ds *Doc, doc *chatdoc.Document, offset int) []RewindOffer {
	p, ok := placeAt(doc, offset)
	if !ok || ds == nil || ds.path == "" {
		return nil
	}
	var out []RewindOffer
	calls, last, err := s.checkpointed(ctx, ds)
	if err != nil {
		s.log.Debug("no rewind actions", zap.Error(err))
	}
	if id := rewindTarget(doc, p, calls); id != "" {
		plan, err := s.rewindPlan(ctx, ds, id)
		if err != nil {
			s.log.Debug("no rewind plan", zap.String("id", id), zap.Error(err))
		} else {
			out = append(out,
				RewindOffer{Title: RewindFilesTitle, Command: CommandRewind, ID: id, Message: p.msg},
				RewindOffer{Title: RewindAllTitle, Command: CommandRewind, ID: id, Message: p.msg, Conversation: true})
			if n := plan.Conflicts(); n > 0 {
				out = append(out,
					RewindOffer{Title: RewindFilesTitle + overwriting(n), Command: CommandRewind, ID: id, Message: p.msg, Overwrite: true},
					RewindOffer{Title: RewindAllTitle + overwriting(n), Command: CommandRewind, ID: id, Message: p.msg, Conversation: true, Overwrite: true})
			}
		}
	} else if p.use != nil {
		if why := s.notCoveredRemote(ds, doc, p.use); why != "" {
			out = append(out, RewindOffer{Title: RewindFilesTitle + ": not covered", Disabled: why})
		}
	}
	if p.msg > 0 {
		out = append(out, RewindOffer{Title: BranchTitle, Command: CommandBranch, Message: p.msg})
	}
	if last != "" {
		out = append(out, RewindOffer{Title: UndoRewindTitle, Command: CommandUndoRewind})
	}
	return out
}

// overwriting is the tail of the second action when files conflict:
// ", overwriting 2 files I changed".
func overwriting(n int) string {
	if n == 1 {
		return ", overwriting 1 file I changed"
	}
	return fmt.Sprintf(", overwriting %d files I changed", n)
}

// notCoveredRemote says why a call that would change files has no
// checkpoint when the document's tools run on a remote target ("" when
// they run here).
func (s *Session) notCoveredRemote(ds *Doc, doc *chatdoc.Document, u *chatdoc.ToolUse) string {
	target := s.targetFor(ds, doc)
	if !target.Remote() {
		return ""
	}
	env := s.toolEnv(ds)
	env.Target = nil
	if s.registry.Touches(tools.Call{ID: u.ID, Name: u.Name, Input: u.ToolInput()}, env).None() {
		return ""
	}
	return u.Name + " runs on the remote target " + tools.RunsOn(target, u.Name, true) + ": rewind covers this machine's files only, so this call has no checkpoint"
}

// rewindPlan plans a rewind to before id on the editor's buffers.
func (s *Session) rewindPlan(ctx context.Context, ds *Doc, id string) (*rewind.Plan, error) {
	store, err := s.checkpointStore()
	if err != nil {
		return nil, err
	}
	return store.PlanWith(ctx, ds.path, id, buffersOf(s.openFiles()))
}

func buffersOf(files map[string]openFile) rewind.Buffers {
	return func(path string) ([]byte, bool) {
		f, ok := files[path]
		if !ok {
			return nil, false
		}
		return []byte(f.doc.Text()), true
	}
}

// RewindHover is what the hover of a tool use with a checkpoint shows
// first: what "Rewind files to before this call" will change, file by
// file (markdown; "" when the call has no checkpoint).
func (s *Session) RewindHover(ctx context.Context, ds *Doc, doc *chatdoc.Document, u *chatdoc.ToolUse) string {
	if ds == nil || ds.path == "" {
		return ""
	}
	calls, _, err := s.checkpointed(ctx, ds)
	if _, ok := calls[u.ID]; err != nil || !ok {
		if why := s.notCoveredRemote(ds, doc, u); why != "" {
			return "**Rewind**: not covered — " + why + "\n"
		}
		return ""
	}
	plan, err := s.rewindPlan(ctx, ds, u.ID)
	if err != nil {
		return "**Rewind**: " + err.Error() + "\n"
	}
	return planMarkdown(plan, s.workspaceRoot(ds.path), s.openFiles())
}

// planMarkdown lists what a rewind plan changes, file by file: restored,
// removed, recreated, conflict (with why), and what is not covered.
func planMarkdown(p *rewind.Plan, root string, open map[string]openFile) string {
	var b strings.Builder
	calls := "this call"
	if n := len(p.Calls) - 1; n == 1 {
		calls = "this call and 1 later one"
	} else if n > 1 {
		calls = fmt.Sprintf("this call and %d later ones", n)
	}
	fmt.Fprintf(&b, "**%s** takes back %s:\n\n", RewindFilesTitle, calls)
	if len(p.Changes) == 0 {
		b.WriteString("- nothing to change: the files are as they were before it\n")
	}
	for _, c := range p.Changes {
		where := ""
		if _, ok := open[c.Path]; ok && c.Kind == rewind.Restore {
			where = " (in the editor)"
		}
		switch {
		case c.Conflict:
			fmt.Fprintf(&b, "- conflict `%s`: %s — left alone; the action “…%s” restores it\n", rel(root, c.Path), c.Reason, overwriting(p.Conflicts()))
		case c.Kind == rewind.Remove:
			fmt.Fprintf(&b, "- removed `%s`\n", rel(root, c.Path))
		case c.Kind == rewind.Recreate:
			fmt.Fprintf(&b, "- recreated `%s`\n", rel(root, c.Path))
		default:
			fmt.Fprintf(&b, "- restored `%s`%s\n", rel(root, c.Path), where)
		}
	}
	for _, u := range p.NotCovered {
		fmt.Fprintf(&b, "- not covered `%s` (%s)\n", rel(root, u.Path), u.Reason)
	}
	return b.String()
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// Rewound is what a rewind did.
type Rewound struct {
	UndoID    string   // the rewind's own checkpoint ("" if nothing changed)
	Written   []string // restored or recreated on disk
	Removed   []string
	InEditor  []string // restored in the editor's buffers
	Conflicts []string // left alone
	Cut       int      // messages removed from the document
}

// Rewind is chatls.rewind (SPEC §10): the files changed by call id and
// every later call go back to their state before it — files open in the
// editor through one workspace edit (its undo takes them back), the rest
// on disk; conflicts are left alone unless overwrite. With conversation,
// the message msg (the one holding the call, or the marker's) and every
// later one leave the document in the same edit.
func (s *Session) Rewind(ctx context.Context, ds *Doc, id string, msg int, conversation, overwrite bool) (Rewound, error) {
	if ds.path == "" {
		return Rewound{}, &BadRequestError{Reason: "an unsaved document has no checkpoints: save it first"}
	}
	var cut *cutBefore
	if conversation {
		s.mu.Lock()
		busy := ds.send != nil
		s.mu.Unlock()
		if busy {
			return Rewound{}, s.refuseSend("an answer is streaming; rewind the conversation once it ends (chatls.cancel stops it)")
		}
		doc := s.latest(ds)
		if msg < 0 || msg >= len(doc.Messages()) {
			span, err := ConversationCut(doc, id)
			if err != nil {
				return Rewound{}, badRequest(err)
			}
			msg = doc.MessageIndexAt(span.Start)
		}
		cut = &cutBefore{text: doc.Text(), at: doc.Messages()[msg].Span.Start, messages: len(doc.Messages()) - msg}
	}
	plan, err := s.rewindPlan(ctx, ds, id)
	if err != nil {
		return Rewound{}, badRequest(err)
	}
	return s.applyRewind(ctx, ds, plan, overwrite, cut, "chatls: rewind to before "+id)
}

// UndoRewind is chatls.undoRewind: the files the document's last rewind
// changed go back to what they were just before it (a rewind too, which
// can be undone in turn). A conversation it cut comes back by the
// editor's undo.
func (s *Session) UndoRewind(ctx context.Context, ds *Doc, overwrite bool) (Rewound, error) {
	if ds.path == "" {
		return Rewound{}, &BadRequestError{Reason: "an unsaved document has no checkpoints: save it first"}
	}
	store, err := s.checkpointStore()
	if err != nil {
		return Rewound{}, err
	}
	last, err := store.LastRewind(ctx, ds.path)
	if err != nil {
		return Rewound{}, err
	}
	if last == "" {
		return Rewound{}, &BadRequestError{Reason: "nothing to undo: this document has no rewind"}
	}
	plan, err := s.rewindPlan(ctx, ds, last)
	if err != nil {
		return Rewound{}, badRequest(err)
	}
	return s.applyRewind(ctx, ds, plan, overwrite, nil, "chatls: undo rewind")
}

// cutBefore is a conversation cut: the document's text from at on goes,
// provided the document is still text when the edit is built.
type cutBefore struct {
	text     string
	at       int
	messages int
}

// applyRewind carries out a plan: the store checkpoints what it replaces
// and writes the files that are not open; the open ones (text, restored
// in place) and the conversation's cut go to the editor as one workspace
// edit.
func (s *Session) applyRewind(ctx context.Context, ds *Doc, plan *rewind.Plan, overwrite bool, cut *cutBefore, label string) (Rewound, error) {
	store, err := s.checkpointStore()
	if err != nil {
		return Rewound{}, err
	}
	files := s.openFiles()
	inEditor := func(path string) bool {
		f, ok := files[path]
		if !ok {
			return false
		}
		for _, c := range plan.Changes {
			if c.Path == path {
				// A buffer that already shows the text (never reloaded)
				// needs nothing: the disk is restored.
				return c.Kind == rewind.Restore && c.Mode != os.ModeSymlink && utf8.Valid(c.Content) && sameExecBit(path, c.Mode) &&
					f.doc.Text() != string(c.Content)
			}
		}
		return false
	}
	applied, err := store.Apply(ctx, plan, rewind.ApplyOptions{Overwrite: overwrite, Skip: inEditor, Buffers: buffersOf(files)})
	done := Rewound{UndoID: applied.UndoID, Written: applied.Written, Removed: applied.Removed, Conflicts: applied.Conflicts}
	if err != nil {
		return done, err
	}
	content := map[string][]byte{}
	for _, c := range plan.Changes {
		content[c.Path] = c.Content
	}
	// along is rebuilt for every try of the edit, on the buffers as they
	// are then: one that already holds its text is left out.
	along := func() []FileEdit {
		var out []FileEdit
		now := s.openFiles()
		for _, path := range applied.Skipped {
			f, ok := now[path]
			if !ok {
				continue
			}
			if e, changed := replaceEdit(f.doc.Text(), string(content[path])); changed {
				out = append(out, FileEdit{URI: f.uri, Version: f.version, Doc: f.doc, Edits: []chatdoc.TextEdit{e}})
			}
		}
		return out
	}
	var problems []string
	switch {
	case cut != nil:
		ok := s.editDocumentWith(ds, label, func(now *chatdoc.Document) ([]chatdoc.TextEdit, error) {
			if now.Text() == cut.text[:cut.at] {
				return nil, nil // landed on an earlier try
			}
			if now.Text() != cut.text {
				return nil, errors.New("the document changed since the rewind was asked for")
			}
			return []chatdoc.TextEdit{{Span: chatdoc.Span{Start: cut.at, End: len(cut.text)}, NewText: ""}}, nil
		}, along)
		if ok {
			done.Cut = cut.messages
		} else {
			problems = append(problems, "the conversation was not cut (it changed meanwhile, or the editor refused the edit): cut it by hand")
		}
	case len(applied.Skipped) > 0:
		if edits := along(); len(edits) > 0 {
			select {
			case res := <-s.editor.ApplyEdit(EditRequest{Files: edits, Label: label}):
				if !res.Applied {
					problems = append(problems, "the editor refused the edit of its open files ("+res.Reason+errText(res.Err)+"): rewind again")
				}
			case <-ctx.Done():
				return done, ctx.Err()
			}
		}
	}
	done.InEditor = applied.Skipped
	if len(problems) > 0 {
		done.InEditor = nil
	}
	s.showMessage(MessageInfo, rewoundMessage(done, s.workspaceRoot(ds.path), problems))
	if len(problems) > 0 {
		return done, errors.New(strings.Join(problems, "; "))
	}
	return done, nil
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// sameExecBit says the file on disk already has the exec bit mode has: a
// restore in the editor cannot change a mode.
func sameExecBit(path string, mode os.FileMode) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && (fi.Mode()&0o100 != 0) == (mode&0o100 != 0)
}

// replaceEdit is the edit that turns old into new: the part between their
// common beginning and end, kept off the middle of a character and of a
// CRLF, so that the editor moves as little as it must.
func replaceEdit(old, new string) (chatdoc.TextEdit, bool) {
	if old == new {
		return chatdoc.TextEdit{}, false
	}
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	for p > 0 && (p < len(old) && !utf8.RuneStart(old[p]) || old[p-1] == '\r') {
		p--
	}
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	for q > 0 && (!utf8.RuneStart(old[len(old)-q]) || old[len(old)-q] == '\n' && len(old)-q > 0 && old[len(old)-q-1] == '\r') {
		q--
	}
	return chatdoc.TextEdit{Span: chatdoc.Span{Start: p, End: len(old) - q}, NewText: new[p : len(new)-q]}, true
}

// rewoundMessage tells the user what a rewind did and how to take it back.
func rewoundMessage(r Rewound, root string, problems []string) string {
	var parts []string
	if n := len(r.Written) + len(r.InEditor); n > 0 {
		parts = append(parts, fmt.Sprintf("%d file(s) restored", n))
	}
	if len(r.InEditor) > 0 {
		parts = append(parts, fmt.Sprintf("%d of them in the editor, not saved yet", len(r.InEditor)))
	}
	if len(r.Removed) > 0 {
		parts = append(parts, fmt.Sprintf("%d removed", len(r.Removed)))
	}
	if r.Cut > 0 {
		parts = append(parts, fmt.Sprintf("%d message(s) cut from the conversation", r.Cut))
	}
	msg := "chatls: rewound"
	if len(parts) == 0 {
		msg = "chatls: nothing to rewind: the files are as they were"
	} else {
		msg += ": " + strings.Join(parts, ", ")
	}
	if len(r.Conflicts) > 0 {
		var names []string
		for _, c := range r.Conflicts {
			names = append(names, rel(root, c))
		}
		msg += fmt.Sprintf("; left alone because you changed them since: %s (the action “…%s” restores them)", strings.Join(names, ", "), overwriting(len(r.Conflicts)))
	}
	if r.UndoID != "" {
		msg += "; " + UndoRewindTitle + " takes it back"
	}
	if len(problems) > 0 {
		msg += "; " + strings.Join(problems, "; ")
	}
	return msg
}

// Branch is chatls.branch: a new file NAME.branch-N.chat beside the
// document with its messages before msg (its frontmatter too); no file is
// touched and the document stays as it is. The branch is a conversation
// of its own: an external agent starts a new session for it (SPEC §12),
// so nothing is remembered for its path — not the document's session,
// nor that of a deleted earlier branch of the same name.
func (s *Session) Branch(ds *Doc, msg int) (string, error) {
	if ds.path == "" {
		return "", &BadRequestError{Reason: "an unsaved document has no place for its branch: save it first"}
	}
	doc := s.latest(ds)
	msgs := doc.Messages()
	if msg <= 0 || msg >= len(msgs) {
		return "", &BadRequestError{Reason: fmt.Sprintf("no message %d to branch at (the document has %d)", msg, len(msgs))}
	}
	name, f, err := createSibling(ds.path, "branch")
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(doc.Text()[:msgs[msg].Span.Start])
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("writing %s: %w", name, err)
	}
	s.agentSessions().forget(name)
	s.showMessage(MessageInfo, fmt.Sprintf("chatls: branched the conversation into %s (%d message(s)); no file was changed", filepath.Base(name), msg))
	return name, nil
}

// ConversationCut is where "Rewind conversation and files to here" cuts
// the document for call id: from the message holding the call to the end,
// so that the document ends with the question that led to it.
func ConversationCut(doc *chatdoc.Document, id string) (chatdoc.Span, error) {
	u := doc.ToolUse(id)
	if u == nil {
		return chatdoc.Span{}, fmt.Errorf("no tool use %s in the document, so there is no place to cut the conversation", id)
	}
	return chatdoc.Span{Start: doc.Messages()[u.Message].Span.Start, End: len(doc.Text())}, nil
}

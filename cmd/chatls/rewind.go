package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/rewind"
	"github.com/chatls/chatls/session"
)

// rewindTimeout bounds a listing or a rewind: a store whose lock a stuck
// process holds must not hang the terminal.
const rewindTimeout = 2 * time.Minute

// Exit codes of chatls rewind besides 0, 1 and 2 (usage).
const rewindConflicts = 3 // files the user changed since were left alone

// openCheckpoints opens the checkpoint store and resolves FILE as the
// session keys it (absolute, symlinks resolved).
func openCheckpoints(name string) (*rewind.Store, string, error) {
	path, err := filepath.Abs(name)
	if err != nil {
		return nil, "", err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	store, err := rewind.Open(filepath.Join(config.StateDir(), "checkpoints"), rewind.Options{})
	return store, path, err
}

// runCheckpoints is `chatls checkpoints FILE`: the calls of FILE that
// have a checkpoint, oldest first, with what each changed (SPEC §10).
func runCheckpoints(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatls checkpoints", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: chatls checkpoints FILE")
		return 2
	}
	store, path, err := openCheckpoints(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "chatls checkpoints:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), rewindTimeout)
	defer cancel()
	calls, err := store.List(ctx, path)
	if err != nil {
		fmt.Fprintln(stderr, "chatls checkpoints:", err)
		return 1
	}
	if len(calls) == 0 {
		fmt.Fprintf(stdout, "%s: no checkpoints (no call of it changed files, or rewind.enabled is false)\n", fs.Arg(0))
		return 0
	}
	doc := readDocument(path)
	for _, c := range calls {
		fmt.Fprintf(stdout, "%s  %s  %s\n", c.ID, c.Time.Local().Format("2006-01-02 15:04:05"), describeCall(doc, c))
		for _, ch := range c.Changes {
			fmt.Fprintf(stdout, "  %s %s\n", ch.Kind, relativeTo(c.Root, ch.Path))
		}
		for _, u := range c.NotCovered {
			fmt.Fprintf(stdout, "  not covered: %s (%s)\n", u.Path, u.Reason)
		}
	}
	return 0
}

// describeCall names what a checkpoint belongs to: the tool of the call
// as the document has it, and what was recorded.
func describeCall(doc *chatdoc.Document, c rewind.Call) string {
	what := "a call no longer in the document"
	switch {
	case c.RewindTo != "":
		what = "rewind to before " + c.RewindTo
	case doc != nil && doc.ToolUse(c.ID) != nil:
		what = doc.ToolUse(c.ID).Name
	}
	scope := "whole workspace"
	if !c.Whole {
		scope = fmt.Sprintf("%d named path(s)", len(c.Paths))
	}
	if !c.Finished {
		scope += ", did not finish"
	}
	return what + " (" + scope + ")"
}

// runRewind is `chatls rewind FILE --to ID [--dry-run] [--conversation]
// [--overwrite]` and `chatls rewind FILE --undo`: the code actions of
// SPEC §10 in a terminal.
func runRewind(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("chatls rewind", flag.ContinueOnError)
	fs.SetOutput(stderr)
	to := fs.String("to", "", "the tool-use ID whose call (and every later one) is taken back")
	dryRun := fs.Bool("dry-run", false, "list what would change, change nothing")
	conversation := fs.Bool("conversation", false, "also remove the message with that call and everything after it from FILE")
	overwrite := fs.Bool("overwrite", false, "restore files you changed since the calls too")
	undo := fs.Bool("undo", false, "take back the last rewind of FILE")
	if err := fs.Parse(reorderFlags(args)); err != nil {
		return 2
	}
	if fs.NArg() != 1 || (*to == "") == !*undo {
		fmt.Fprintln(stderr, "usage: chatls rewind FILE --to ID [--dry-run] [--conversation] [--overwrite] | chatls rewind FILE --undo")
		return 2
	}
	store, path, err := openCheckpoints(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "chatls rewind:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), rewindTimeout)
	defer cancel()
	id := *to
	if *undo {
		if id, err = store.LastRewind(ctx, path); err != nil || id == "" {
			fmt.Fprintln(stderr, "chatls rewind: nothing to undo: "+fs.Arg(0)+" has no rewind", errText(err))
			return 1
		}
	}
	var cut *chatdoc.Span
	if *conversation {
		if cut, err = conversationCut(path, id); err != nil {
			fmt.Fprintln(stderr, "chatls rewind:", err)
			return 1
		}
	}
	plan, err := store.Plan(ctx, path, id)
	if err != nil {
		fmt.Fprintln(stderr, "chatls rewind:", err)
		return 1
	}
	printPlan(stdout, plan, *overwrite)
	if *dryRun {
		return 0
	}
	// The send lock: no chatls may be streaming into FILE while its
	// conversation is cut.
	lock, err := docfile.Acquire(filepath.Join(config.StateDir(), "locks"), path)
	if err != nil {
		fmt.Fprintln(stderr, "chatls rewind:", err)
		return 1
	}
	defer lock.Release()
	applied, err := store.Apply(ctx, plan, rewind.ApplyOptions{Overwrite: *overwrite})
	if err != nil {
		fmt.Fprintln(stderr, "chatls rewind:", err)
		return 1
	}
	if cut != nil {
		if err := removeConversation(path, *cut); err != nil {
			fmt.Fprintln(stderr, "chatls rewind: the files were rewound, but FILE was not cut:", err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "chatls rewind: %d file(s) restored, %d removed%s; undo with: chatls rewind %s --undo\n",
		len(applied.Written), len(applied.Removed), conversationNote(cut), fs.Arg(0))
	if len(applied.Conflicts) > 0 {
		fmt.Fprintf(stderr, "chatls rewind: %d file(s) you changed since were left alone; --overwrite restores them too\n", len(applied.Conflicts))
		return rewindConflicts
	}
	return 0
}

func conversationNote(cut *chatdoc.Span) string {
	if cut == nil {
		return ""
	}
	return ", the conversation cut before the call"
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return "(" + err.Error() + ")"
}

// printPlan lists what the rewind changes, file by file, first.
func printPlan(w io.Writer, p *rewind.Plan, overwrite bool) {
	if len(p.Changes) == 0 {
		fmt.Fprintln(w, "nothing to change: the files are as they were before", p.ID)
	}
	for _, c := range p.Changes {
		switch {
		case c.Conflict && !overwrite:
			fmt.Fprintf(w, "conflict %s: %s (left alone; --overwrite restores it)\n", c.Path, c.Reason)
		default:
			fmt.Fprintf(w, "%s %s\n", c.Kind, c.Path)
		}
	}
	for _, u := range p.NotCovered {
		fmt.Fprintf(w, "not covered %s (%s)\n", u.Path, u.Reason)
	}
}

// conversationCut is the part of FILE that --conversation removes, as the
// editor's action does (session.ConversationCut).
func conversationCut(path, id string) (*chatdoc.Span, error) {
	doc := readDocument(path)
	if doc == nil {
		return nil, fmt.Errorf("cannot read %s", path)
	}
	span, err := session.ConversationCut(doc, id)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &span, nil
}

// removeConversation cuts FILE as conversationCut said, unless FILE
// changed meanwhile (then the user's text wins and nothing is cut).
func removeConversation(path string, cut chatdoc.Span) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data) != cut.End {
		return errors.New(path + " changed while it was rewound; cut it by hand")
	}
	return docfile.Write(path, data[:cut.Start])
}

// readDocument parses FILE (nil when it cannot be read).
func readDocument(path string) *chatdoc.Document {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return chatdoc.Parse(string(data))
}

func relativeTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return rel
	}
	return path
}

// reorderFlags lets FILE come first, as SPEC §10 writes the command
// (`chatls rewind FILE --to ID`): the flag package stops at the first
// argument that is not a flag.
func reorderFlags(args []string) []string {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return append(append([]string{}, args[1:]...), args[0])
	}
	return args
}

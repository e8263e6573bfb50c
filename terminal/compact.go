package terminal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/chatls/chatls/session"
)

// Compact is `chatls compact FILE` (SPEC §11): the session compacts FILE
// as the editor's action does — the older turns into NAME.archive-N.chat,
// the model's summary in their place — and FILE is written once. A failed
// summary request leaves FILE as it was.
func Compact(name string, o Options, interrupted context.Context, stdout, stderr io.Writer) (int, error) {
	settings := map[string]any{"autopilot": false}
	if o.Model != "" {
		settings["model"] = o.Model
	}
	r, closeFile, err := openFile(name, o, settings, interrupted, stderr)
	if err != nil {
		return Failed, err
	}
	defer closeFile()
	done, err := r.sess.Compact(interrupted, r.d)
	if err != nil {
		return Failed, r.unlessPrinted(reason(err, r.ed.failure()))
	}
	fmt.Fprintf(stdout, "compacted %d messages of %s into %s; the summary is the first message (edit it before the next send)\n",
		done.Moved, name, filepath.Base(done.Archive))
	return Done, nil
}

// Trim is `chatls compact --trim FILE`, "Trim old tool outputs" (SPEC §11):
// the old tool outputs larger than 2 KB keep their first lines, the whole
// outputs go to NAME.archive-N.chat, and FILE is written once. No model
// is asked.
func Trim(name string, o Options, interrupted context.Context, stdout, stderr io.Writer) (int, error) {
	r, closeFile, err := openFile(name, o, map[string]any{"autopilot": false}, interrupted, stderr)
	if err != nil {
		return Failed, err
	}
	defer closeFile()
	done, err := r.sess.Trim(interrupted, r.d)
	if err != nil {
		return Failed, r.unlessPrinted(reason(err, r.ed.failure()))
	}
	outputs := "tool outputs"
	if done.Trimmed == 1 {
		outputs = "tool output"
	}
	fmt.Fprintf(stdout, "trimmed %d %s of %s (%d bytes) into %s\n", done.Trimmed, outputs, name, done.Saved, filepath.Base(done.Archive))
	return Done, nil
}

// reason is what the user reads of a session's error: a refusal's or bad
// request's reason alone, or the write's failure when writing FILE failed.
func reason(err, writeErr error) error {
	var refused *session.RefusedError
	var bad *session.BadRequestError
	switch {
	case writeErr != nil:
		return writeErr
	case errors.As(err, &refused):
		return errors.New(refused.Reason)
	case errors.As(err, &bad):
		return errors.New(bad.Reason)
	}
	return err
}

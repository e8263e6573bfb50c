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
		var refused *session.RefusedError
		var bad *session.BadRequestError
		switch {
		case errors.As(err, &refused):
			err = errors.New(refused.Reason)
		case errors.As(err, &bad):
			err = errors.New(bad.Reason)
		}
		if werr := r.ed.failure(); werr != nil {
			err = werr
		}
		return Failed, r.unlessPrinted(err)
	}
	fmt.Fprintf(stdout, "compacted %d messages of %s into %s; the summary is the first message (edit it before the next send)\n",
		done.Moved, name, filepath.Base(done.Archive))
	return Done, nil
}

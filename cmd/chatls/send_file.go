package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chatls/chatls/internal/docfile"
	"github.com/chatls/chatls/internal/lspclient"
)

// sentFile is FILE as `chatls send` keeps it: the text last written, and
// the file's state after that write, to notice another program's edit.
type sentFile struct {
	path    string
	uri     string
	written string
	stat    os.FileInfo
	warn    io.Writer
}

// sync writes the document to FILE when it changed, atomically. Before
// that, an edit another program made to FILE since the last write is
// handed to the session, which keeps it as an editor keeps the user's
// typing (the answer goes on at its own anchor).
func (f *sentFile) sync(ctx context.Context, c *lspclient.Client) error {
	for {
		if err := f.takeExternal(ctx, c); err != nil {
			return err
		}
		text := c.Doc(f.uri).Text
		if text == f.written {
			return nil
		}
		// An edit made while the new text is flushed would be renamed over:
		// then it is taken in first and the text written again.
		stat, err := docfile.WriteUnlessChanged(f.path, []byte(text), f.changedOnDisk)
		if errors.Is(err, docfile.ErrChangedMeanwhile) {
			continue
		}
		if err != nil {
			return err
		}
		f.written, f.stat = text, stat
		return nil
	}
}

// changedOnDisk says whether FILE is no longer what chatls send last wrote
// or read (another program wrote it since).
func (f *sentFile) changedOnDisk() bool {
	_, changed := f.lookOnDisk()
	return changed
}

// lookOnDisk is FILE's state now and whether it differs from what chatls
// send last wrote or read.
func (f *sentFile) lookOnDisk() (os.FileInfo, bool) {
	fi, err := os.Stat(f.path)
	if err != nil || f.stat == nil {
		return fi, false
	}
	return fi, !os.SameFile(fi, f.stat) || !fi.ModTime().Equal(f.stat.ModTime()) || fi.Size() != f.stat.Size()
}

// takeExternal sends the session another program's edit of FILE: where
// FILE and the session's text still agree (before what arrived since the
// last write), or appended at its end; elsewhere it cannot be placed and
// says so rather than write over it silently.
func (f *sentFile) takeExternal(ctx context.Context, c *lspclient.Client) error {
	fi, changed := f.lookOnDisk()
	if !changed {
		return nil
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return err
	}
	f.stat = fi
	disk := string(data)
	if disk == f.written {
		return nil
	}
	start, oldEnd, newEnd := commonEnds(f.written, disk)
	doc := c.Doc(f.uri).Text
	agree, _, _ := commonEnds(f.written, doc)
	switch {
	case start == len(f.written) && oldEnd == start:
		start, oldEnd = len(doc), len(doc) // appended: at the end of the session's text too
	case oldEnd > agree && f.written != doc:
		fmt.Fprintf(f.warn, "chatls send: %s changed where the answer is being written; that change is not kept (it is in no other place)\n", f.path)
		return nil
	}
	rng := lspclient.Range{Start: c.PositionIn(doc, start), End: c.PositionIn(doc, oldEnd)}
	if err := c.Change(ctx, f.uri, []lspclient.TextEdit{{Range: rng, NewText: disk[start:newEnd]}}); err != nil {
		return err
	}
	f.written = disk // what FILE holds: the next write is the session's text
	return nil
}

// commonEnds is where a and b differ: a[start:oldEnd] became b[start:newEnd].
func commonEnds(a, b string) (start, oldEnd, newEnd int) {
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	s := 0
	for s < len(a)-start && s < len(b)-start && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return start, len(a) - s, len(b) - s
}

// shutdownWithin ends the server, killing it when it does not end in time:
// nothing chatls send started may outlive it.
func shutdownWithin(c *lspclient.Client, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_ = c.Shutdown(ctx)
}

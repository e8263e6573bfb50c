package lspclient

import (
	"context"
	"strings"
	"sync"
	"time"
)

// EchoShape is how the client describes an applied server edit in its
// didChange. Real editors rarely echo the ranges they were sent: Neovim
// re-expresses an edit as a replacement of whole lines, some split it, Vim's
// ALE sends the whole text. The server must recognise its own edit by
// content in every shape (SPEC §2 "Writing back").
type EchoShape string

const (
	EchoAsSent EchoShape = ""      // the edit's own ranges
	EchoLines  EchoShape = "lines" // one change replacing the whole lines it touched
	EchoSplit  EchoShape = "split" // the inserted text in two changes
	EchoWhole  EchoShape = "whole" // the whole text
)

// reshape describes the change from before to after in the shape.
func (c *Client) reshape(shape EchoShape, before, after string, asSent []map[string]any) []map[string]any {
	if shape == EchoAsSent || before == after {
		return asSent
	}
	if shape == EchoWhole {
		return []map[string]any{{"text": after}}
	}
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	start, oldEnd, newEnd := p, len(before)-s, len(after)-s
	switch shape {
	case EchoLines:
		// Widen to whole lines: from the start of the first line touched
		// to the end of the last one, its line ending included.
		ls := strings.LastIndexByte(before[:start], '\n') + 1
		grow := 0
		if i := strings.IndexByte(before[oldEnd:], '\n'); i >= 0 {
			grow = i + 1
		} else {
			grow = len(before) - oldEnd
		}
		start, oldEnd, newEnd = ls, oldEnd+grow, newEnd+grow
		return []map[string]any{{"range": Range{Start: c.position(before, start), End: c.position(before, oldEnd)}, "text": after[start:newEnd]}}
	case EchoSplit:
		ins := after[start:newEnd]
		half := len(ins) / 2
		for half > 0 && half < len(ins) && ins[half]&0xC0 == 0x80 {
			half-- // keep characters whole
		}
		first := map[string]any{"range": Range{Start: c.position(before, start), End: c.position(before, oldEnd)}, "text": ins[:half]}
		mid := before[:start] + ins[:half] + before[oldEnd:]
		at := c.position(mid, start+half)
		return []map[string]any{first, {"range": Range{Start: at, End: at}, "text": ins[half:]}}
	}
	return asSent
}

// delayedEchoes sends didChanges DelayEcho after their edits, in order.
type delayedEchoes struct {
	once  sync.Once
	queue chan delayedEcho
}

type delayedEcho struct {
	at      time.Time
	uri     string
	version int32
	changes []map[string]any
}

func (d *delayedEchoes) send(ctx context.Context, c *Client, uri string, version int32, changes []map[string]any) {
	d.once.Do(func() {
		d.queue = make(chan delayedEcho, 4096)
		go func() {
			for e := range d.queue {
				time.Sleep(time.Until(e.at)) // the client is busy: a delay is what this simulates
				c.sendMu.Lock()
				_ = c.sendChange(ctx, e.uri, e.version, e.changes)
				c.sendMu.Unlock()
			}
		}()
	})
	d.queue <- delayedEcho{time.Now().Add(c.opts.DelayEcho), uri, version, changes}
}

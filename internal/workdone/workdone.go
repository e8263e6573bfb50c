// Package workdone shows long work in the editor as LSP work-done progress
// ($/progress): created lazily, reported at a bounded rate, ended in order,
// cancellable from the editor's UI. It only talks to the editor through a
// Client, which sends nothing to editors without progress UI.
package workdone

import (
	"sync"
	"time"
)

// Client is what a Reporter needs of the connection to the editor.
type Client interface {
	// CreateProgress creates the token in the editor (a round trip); it
	// fails for editors without progress UI.
	CreateProgress(token string) error
	// Progress sends one $/progress value.
	Progress(token string, value map[string]any)
}

// reportEvery bounds how often a Reporter reports.
const reportEvery = 200 * time.Millisecond

// Reporter is one piece of work's progress in the editor.
type Reporter struct {
	c     Client
	token string
	title string

	mu   sync.Mutex
	last time.Time
	// ready is set by Begin and closed once the token is created and
	// "begin" sent; began says whether that worked. Creating the token is
	// a round trip to the editor, so the work goes on without waiting.
	ready chan struct{}
	began bool
}

// New prepares the progress of one piece of work; nothing is sent before Begin.
func New(c Client, token, title string) *Reporter {
	return &Reporter{c: c, token: token, title: title}
}

// Token is the progress token (its cancel comes back with it).
func (r *Reporter) Token() string { return r.token }

// Begin creates the token and sends "begin", in the background.
func (r *Reporter) Begin(message string, cancellable bool) {
	ready := make(chan struct{})
	r.mu.Lock()
	if r.ready != nil {
		r.mu.Unlock()
		return
	}
	r.ready = ready
	r.mu.Unlock()
	go func() {
		defer close(ready)
		if err := r.c.CreateProgress(r.token); err != nil {
			return
		}
		r.c.Progress(r.token, map[string]any{"kind": "begin", "title": r.title, "cancellable": cancellable, "message": message})
		r.mu.Lock()
		r.began = true
		r.mu.Unlock()
	}()
}

// Started reports whether "begin" went out; it never blocks.
func (r *Reporter) Started() bool {
	r.mu.Lock()
	ready := r.ready
	r.mu.Unlock()
	if ready == nil {
		return false
	}
	select {
	case <-ready:
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.began
	default:
		return false
	}
}

// Report sends a message, at most every 200 ms and only once begun; it
// says whether it sent one.
func (r *Reporter) Report(message string) bool {
	if !r.Started() {
		return false
	}
	r.mu.Lock()
	if time.Since(r.last) < reportEvery {
		r.mu.Unlock()
		return false
	}
	r.last = time.Now()
	r.mu.Unlock()
	r.c.Progress(r.token, map[string]any{"kind": "report", "message": message})
	return true
}

// End sends "end" if "begin" went out, after it (it waits for the token's
// creation, which the Client bounds).
func (r *Reporter) End(message string) {
	r.mu.Lock()
	ready := r.ready
	r.mu.Unlock()
	if ready == nil {
		return // never began
	}
	<-ready
	r.mu.Lock()
	began := r.began
	r.mu.Unlock()
	if began {
		r.c.Progress(r.token, map[string]any{"kind": "end", "message": message})
	}
}

// Delayed runs a function once a delay has passed, unless the work settled
// first: a call that ends at once shows no flicker and spares the editor
// round trips that would only say it ran.
type Delayed struct {
	timer   *time.Timer
	done    chan struct{}
	settled bool
	fired   bool
}

// After runs fn after d unless Settle comes first.
func After(d time.Duration, fn func()) *Delayed {
	a := &Delayed{done: make(chan struct{})}
	a.timer = time.AfterFunc(d, func() {
		defer close(a.done)
		fn()
	})
	return a
}

// Settle stops fn or waits until it has run, and reports whether it ran.
// Only one goroutine calls it; calls after the first return the same answer.
func (a *Delayed) Settle() bool {
	if !a.settled {
		a.settled = true
		if !a.timer.Stop() { // it fired: wait until it is done
			<-a.done
			a.fired = true
		}
	}
	return a.fired
}

// Cancels maps progress tokens to what cancels their work, for the
// editor's window/workDoneProgress/cancel. Safe for concurrent use.
type Cancels struct {
	mu sync.Mutex
	m  map[string]func()
}

// Add registers cancel for token until remove is called.
func (c *Cancels) Add(token string, cancel func()) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]func(){}
	}
	c.m[token] = cancel
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.m, token)
	}
}

// Cancel cancels the work of token; false when there is none.
func (c *Cancels) Cancel(token string) bool {
	c.mu.Lock()
	cancel := c.m[token]
	c.mu.Unlock()
	if cancel == nil {
		return false
	}
	cancel()
	return true
}

package server

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/tools"
)

// progressReporter sends $/progress for one running tool, only to clients
// that advertise window.workDoneProgress (eglot 1.9 does not). It sends
// nothing until begin: runTool begins it only once the tool has run for
// announceAfter, so a call that ends at once causes no progress UI.
type progressReporter struct {
	s     *Server
	rs    *runState
	title string
	token string
	mu    sync.Mutex
	last  time.Time
	// ready is set by begin and closed once the token is created and
	// "begin" sent; began says whether that worked. Creating it is a round
	// trip to the client, so the tool goes on without waiting for it.
	ready chan struct{}
	began bool
}

// announceAfter is how long a tool runs before hints, diagnostics and
// $/progress say it is running: a call that ends at once (most do) shows
// no flicker and spares the client round trips that would only say so.
const announceAfter = 100 * time.Millisecond

// announcement says a run is running once it has lasted announceAfter.
type announcement struct {
	timer   *time.Timer
	done    chan struct{}
	settled bool
	fired   bool
}

// announceLater refreshes hints and diagnostics and begins progress for a
// run after announceAfter, unless settle comes first.
func (s *Server) announceLater(ds *docState, progress *progressReporter) *announcement {
	a := &announcement{done: make(chan struct{})}
	a.timer = time.AfterFunc(announceAfter, func() {
		defer close(a.done)
		s.refreshHints()
		s.scheduleDiagnostics(ds)
		progress.begin()
	})
	return a
}

// settle stops the announcement or waits until it is out, and reports
// whether it went out. Only the run's goroutine calls it; calls after the
// first return the same answer.
func (a *announcement) settle() bool {
	if !a.settled {
		a.settled = true
		if !a.timer.Stop() { // it fired: wait until it is done
			<-a.done
			a.fired = true
		}
	}
	return a.fired
}

// newProgress prepares the progress of one run; nil s means "none".
func (s *Server) newProgress(rs *runState, call tools.Call) *progressReporter {
	if !s.features().workDoneProgress {
		return &progressReporter{}
	}
	return &progressReporter{s: s, rs: rs, title: s.previewCall(call.Name, call.Input, 60),
		token: fmt.Sprintf("chatls/%s/%s", rs.id, time.Now().Format("150405.000"))}
}

// begin creates the token and sends "begin", in the background.
func (p *progressReporter) begin() {
	if p.s == nil {
		return
	}
	ready := make(chan struct{})
	p.mu.Lock()
	p.ready = ready
	p.mu.Unlock()
	go func() {
		defer close(ready)
		if err := p.s.createProgress(p.token); err != nil {
			return
		}
		p.s.mu.Lock()
		p.rs.token = p.token
		p.s.mu.Unlock()
		p.s.progress(p.token, map[string]any{"kind": "begin", "title": "chatls: " + p.title, "cancellable": true, "message": "running"})
		p.began = true
	}()
}

// started reports whether "begin" went out; it never blocks.
func (p *progressReporter) started() bool {
	p.mu.Lock()
	ready := p.ready
	p.mu.Unlock()
	if ready == nil {
		return false
	}
	select {
	case <-ready:
		return p.began
	default:
		return false
	}
}

// report sends elapsed time and the last output line, at most every 200 ms.
func (p *progressReporter) report(pr tools.Progress) {
	if p.s == nil || !p.started() {
		return
	}
	p.mu.Lock()
	if time.Since(p.last) < 200*time.Millisecond {
		p.mu.Unlock()
		return
	}
	p.last = time.Now()
	p.mu.Unlock()
	msg := fmt.Sprintf("%ds", pr.ElapsedMillis/1000)
	if pr.LastLine != "" {
		msg += " · " + truncateRunes(pr.LastLine, 80)
	}
	p.s.progress(p.token, map[string]any{"kind": "report", "message": msg})
	p.s.refreshHints()
}

func (p *progressReporter) end(res tools.Result) {
	if p.s == nil {
		return
	}
	p.mu.Lock()
	ready := p.ready
	p.mu.Unlock()
	if ready == nil {
		return // never began
	}
	<-ready // "end" must follow "begin"; creation is bounded by clientCallTimeout
	if !p.began {
		return
	}
	msg := "done"
	switch {
	case res.Cancelled:
		msg = "cancelled"
	case res.IsError:
		msg = "failed"
	}
	p.s.progress(p.token, map[string]any{"kind": "end", "message": msg})
}

// progressCancelled handles window/workDoneProgress/cancel from the UI.
func (s *Server) progressCancelled(raw *json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if raw == nil || json.Unmarshal(*raw, &p) != nil {
		return
	}
	var token string
	_ = json.Unmarshal(p.Token, &token)
	s.mu.Lock()
	var found *runState
	for _, ds := range s.docs {
		for _, rs := range ds.runs {
			if rs.token == token && token != "" {
				found = rs
			}
		}
	}
	s.mu.Unlock()
	if found != nil {
		found.cancel(execution.ErrCancelled)
	}
}

// truncateRunes shortens s to at most n runes, ending in "…".
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

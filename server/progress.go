package server

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/tools"
)

// progressReporter sends $/progress for one running tool, only to clients
// that advertise window.workDoneProgress (eglot 1.9 does not).
type progressReporter struct {
	s     *Server
	token string
	mu    sync.Mutex
	last  time.Time
	// ready is closed once the token is created and "begin" sent; began says
	// whether that worked. Creating it is a round trip to the client, so the
	// tool starts without waiting for it.
	ready chan struct{}
	began bool
}

// progressParams is marshalled by pointer: protocol's value types send "token":{}.
type progressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

func (s *Server) beginProgress(ds *docState, rs *runState, u *chatdoc.ToolUse) *progressReporter {
	s.mu.Lock()
	supported := s.caps.Window != nil && s.caps.Window.WorkDoneProgress
	s.mu.Unlock()
	if !supported {
		return &progressReporter{}
	}
	token := fmt.Sprintf("chatls/%s/%s", rs.id, time.Now().Format("150405.000"))
	p := &progressReporter{s: s, token: token, ready: make(chan struct{})}
	title := s.preview(u, 60)
	go func() {
		defer close(p.ready)
		if err := s.call("window/workDoneProgress/create", map[string]any{"token": token}, nil, clientCallTimeout); err != nil {
			return
		}
		s.mu.Lock()
		rs.token = token
		s.mu.Unlock()
		s.notify("$/progress", &progressParams{Token: token, Value: map[string]any{
			"kind": "begin", "title": "chatls: " + title, "cancellable": true, "message": "running",
		}})
		p.began = true
	}()
	return p
}

// started reports whether "begin" went out; it never blocks.
func (p *progressReporter) started() bool {
	select {
	case <-p.ready:
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
	p.s.notify("$/progress", &progressParams{Token: p.token, Value: map[string]any{"kind": "report", "message": msg}})
	p.s.refreshHints()
}

func (p *progressReporter) end(res tools.Result) {
	if p.s == nil {
		return
	}
	<-p.ready // "end" must follow "begin"; creation is bounded by clientCallTimeout
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
	p.s.notify("$/progress", &progressParams{Token: p.token, Value: map[string]any{"kind": "end", "message": msg}})
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
		for _, rs := range ds.running {
			if rs.token == token && token != "" {
				found = rs
			}
		}
	}
	s.mu.Unlock()
	if found != nil {
		found.cancel(errUserCancelled)
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

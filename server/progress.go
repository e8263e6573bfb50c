package server

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/chatls/chatls/execution"
	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/server/workdone"
	"github.com/chatls/chatls/tools"
)

// announceAfter is how long a tool runs before hints, diagnostics and
// $/progress say it is running: a call that ends at once (most do) shows
// no flicker and spares the client round trips that would only say so.
const announceAfter = 100 * time.Millisecond

// progressClient lets workdone reporters talk to the editor.
type progressClient struct{ s *Server }

func (c progressClient) CreateProgress(token string) error { return c.s.createProgress(token) }
func (c progressClient) Progress(token string, value map[string]any) {
	c.s.progress(token, value)
}

// runProgress is the progress of one run, cancellable from the editor.
type runProgress struct {
	*workdone.Reporter
	remove func()
}

// newRunProgress prepares the progress of one run; nothing is sent until
// begin (after announceAfter).
func (s *Server) newRunProgress(rs *runState, call tools.Call, target *tools.TargetEnv) *runProgress {
	token := fmt.Sprintf("chatls/%s/%s", rs.id, time.Now().Format("150405.000"))
	rep := workdone.New(progressClient{s}, token, "chatls: "+s.previewCall(target, call.Name, call.Input, 60))
	remove := s.progressCancels.Add(token, func() { rs.cancel(execution.ErrCancelled) })
	return &runProgress{Reporter: rep, remove: remove}
}

// announceLater refreshes hints and diagnostics and begins the progress of
// a run after announceAfter, unless the run settles first.
func (s *Server) announceLater(ds *docState, p *runProgress) *workdone.Delayed {
	return workdone.After(announceAfter, func() {
		s.refreshHints()
		s.scheduleDiagnostics(ds)
		p.Begin("running", true)
	})
}

// report shows elapsed time and the last output line.
func (p *runProgress) report(pr tools.Progress, refresh func()) {
	msg := fmt.Sprintf("%ds", pr.ElapsedMillis/1000)
	if pr.LastLine != "" {
		msg += " · " + clip.Runes(pr.LastLine, 80)
	}
	if p.Report(msg) {
		refresh()
	}
}

// end says how the run ended.
func (p *runProgress) end(res tools.Result) {
	defer p.remove()
	msg := "done"
	switch {
	case res.Cancelled:
		msg = "cancelled"
	case res.IsError:
		msg = "failed"
	}
	p.End(msg)
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
	if json.Unmarshal(p.Token, &token) == nil && token != "" {
		s.progressCancels.Cancel(token)
	}
}

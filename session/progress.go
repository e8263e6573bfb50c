package session

import (
	"fmt"
	"time"

	"github.com/chatls/chatls/internal/clip"
	"github.com/chatls/chatls/internal/workdone"
	"github.com/chatls/chatls/tools"
)

// announceAfter is how long a tool runs before hints, diagnostics and
// $/progress say it is running: a call that ends at once (most do) shows
// no flicker and spares the client round trips that would only say so.
const announceAfter = 100 * time.Millisecond

// runProgress is the progress of one run, cancellable from the editor.
type runProgress struct {
	*workdone.Reporter
	remove func()
}

// newRunProgress prepares the progress of one run; nothing is sent until
// begin (after announceAfter).
func (s *Session) newRunProgress(ds *Doc, id string, call tools.Call, target *tools.TargetEnv) *runProgress {
	token := fmt.Sprintf("chatls/%s/%s", id, time.Now().Format("150405.000"))
	rep := workdone.New(s.editor, token, "chatls: "+s.previewCall(target, call.Name, call.Input, 60))
	remove := s.progressCancels.Add(token, func() { s.cancelTool(ds, id) })
	return &runProgress{Reporter: rep, remove: remove}
}

// announceLater refreshes hints and diagnostics and begins the progress of
// a run after announceAfter, unless the run settles first.
func (s *Session) announceLater(ds *Doc, p *runProgress) *workdone.Delayed {
	return workdone.After(announceAfter, func() {
		s.editor.RefreshHints()
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

// CancelProgress cancels the work a progress token reports on (the
// editor's progress UI); false when nothing runs under it any more.
func (s *Session) CancelProgress(token string) bool { return s.progressCancels.Cancel(token) }

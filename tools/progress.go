package tools

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatls/chatls/internal/procsup"
)

// progressInterval bounds how often Env.Progress is called (a process's
// runtime ticks as often).
const progressInterval = procsup.TickEvery

// TickProgress wraps report for a tool that runs under the Runner's timeout
// (every tool but bash, which streams its own): every progressInterval it
// sends the elapsed time and the last output line the tool gave through the
// returned function (grep: its latest match), so `$/progress` shows every
// long call alive. The tool's own calls only record the line; stop ends the
// ticking and returns once no report is in progress.
func TickProgress(report func(Progress)) (tool func(Progress), stop func()) {
	var last atomic.Pointer[string]
	stop = ReportProgress(report, func() string {
		if p := last.Load(); p != nil {
			return *p
		}
		return ""
	})
	tool = func(p Progress) {
		line := p.LastLine
		last.Store(&line)
	}
	return tool, stop
}

// ReportProgress calls report every progressInterval with the elapsed
// time and lastLine() until stop, which returns once no report is in
// progress and may be called more than once. A nil report does nothing.
func ReportProgress(report func(Progress), lastLine func() string) (stop func()) {
	if report == nil {
		return func() {}
	}
	started := time.Now()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				report(Progress{ElapsedMillis: time.Since(started).Milliseconds(), LastLine: lastLine()})
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(quit)
		<-done
	})
}

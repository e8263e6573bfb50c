package tools

import (
	"sync"
	"time"
)

// tickProgress wraps report for a tool that runs under the Runner's timeout
// (every tool but bash, which streams its own): every progressInterval it
// sends the elapsed time and the last output line the tool gave through the
// returned function (grep: its latest match), so `$/progress` shows every
// long call alive. The tool's own calls only record the line; stop ends the
// ticking and returns once no report is in progress.
func tickProgress(report func(Progress)) (tool func(Progress), stop func()) {
	var mu sync.Mutex
	last := ""
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
				mu.Lock()
				line := last
				mu.Unlock()
				report(Progress{ElapsedMillis: time.Since(started).Milliseconds(), LastLine: line})
			}
		}
	}()
	tool = func(p Progress) {
		mu.Lock()
		last = p.LastLine
		mu.Unlock()
	}
	stop = sync.OnceFunc(func() {
		close(quit)
		<-done
	})
	return tool, stop
}

package workdone

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

type recorder struct {
	mu      sync.Mutex
	noUI    bool
	created chan struct{} // closed when CreateProgress may return
	values  []string
	tokens  []string
}

func (r *recorder) CreateProgress(token string) error {
	if r.created != nil {
		<-r.created
	}
	if r.noUI {
		return errors.New("not supported")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tokens = append(r.tokens, token)
	return nil
}

func (r *recorder) Progress(token string, v map[string]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.values = append(r.values, v["kind"].(string)+":"+v["message"].(string))
}

func (r *recorder) seen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.values, " ")
}

// begin, reports and end go out in order; End waits for a slow creation,
// and a report before the token exists is dropped, not sent early.
func TestReporterOrder(t *testing.T) {
	rec := &recorder{created: make(chan struct{})}
	r := New(rec, "tok", "chatls: bash")
	if r.Report("too early") {
		t.Fatal("a report before Begin went out")
	}
	r.Begin("running", true)
	if r.Started() || r.Report("while creating") {
		t.Fatal("reported before the token was created")
	}
	close(rec.created)
	for !r.Started() {
		time.Sleep(time.Millisecond)
	}
	if !r.Report("1s") {
		t.Fatal("the first report after begin was not sent")
	}
	if r.Report("throttled") {
		t.Fatal("a second report within 200 ms was sent")
	}
	r.End("done")
	if got, want := rec.seen(), "begin:running report:1s end:done"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// An editor without progress UI gets nothing, End included.
func TestReporterWithoutUI(t *testing.T) {
	rec := &recorder{noUI: true}
	r := New(rec, "tok", "t")
	r.Begin("x", false)
	r.End("done")
	if rec.seen() != "" {
		t.Fatalf("sent %q", rec.seen())
	}
	New(rec, "never", "t").End("done") // never begun: no wait, nothing sent
}

func TestDelayed(t *testing.T) {
	ran := make(chan struct{}, 1)
	if After(time.Hour, func() { ran <- struct{}{} }).Settle() {
		t.Fatal("settled before the delay but reported as run")
	}
	d := After(time.Millisecond, func() { ran <- struct{}{} })
	<-ran
	if !d.Settle() || !d.Settle() {
		t.Fatal("ran but Settle says no")
	}
}

func TestCancels(t *testing.T) {
	var c Cancels
	n := 0
	remove := c.Add("t", func() { n++ })
	if !c.Cancel("t") || n != 1 || c.Cancel("other") {
		t.Fatal("cancel by token")
	}
	remove()
	if c.Cancel("t") {
		t.Fatal("removed token still cancels")
	}
}

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/internal/anthropicsse"
	"github.com/chatls/chatls/internal/lspclient"
)

// Performance as users feel it (docs/performance.md, "Typing from the first
// key", "First token", "Memory while typing and streaming"): the real
// binary over stdio, driven by lineEditor, which keeps its documents as
// lines; both sides of each figure in one run, interleaved.
//
//	go test ./e2e -run '^$' -bench 'FirstKeystrokes|FirstToken|MemoryFeel' -benchtime 1x
//
// CHATLS_FEEL_ROUNDS sets the number of rounds.

const feelTinyDoc = "@You:\nRun the tests and tell me what fails.\n\n@Assistant:\nSure.\n\n@You:\n"

func feelRounds(def int) int {
	if n, err := strconv.Atoi(os.Getenv("CHATLS_FEEL_ROUNDS")); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkFirstKeystrokes: a fresh server opens the document, and as soon
// as it answers a hover (the open applied) the first 100 keystrokes are
// typed after the document's second message, each followed by a hover at
// 0:0 whose answer ends it (the ordered dispatcher answers it after the
// change). One side is the generated 10 MB document, the other the 70-byte
// one; each round runs both, in alternating order. Reported: the median
// and p99 of all keystrokes of each side, and their ratios.
func BenchmarkFirstKeystrokes(b *testing.B) {
	big := chatgen.Generate(10<<20, 1)
	rounds := feelRounds(8)
	const keys = 100
	var all, allCPU [2][]time.Duration
	var first10 [2][]time.Duration
	var roundMed, roundP99 []float64
	for b.Loop() {
		for r := range rounds {
			var med, p99 [2]time.Duration
			for k := range 2 {
				side := (r + k) % 2
				text := big
				if side == 1 {
					text = feelTinyDoc
				}
				lat, cpu := firstKeystrokes(b, text, keys)
				all[side] = append(all[side], lat...)
				allCPU[side] = append(allCPU[side], cpu...)
				first10[side] = append(first10[side], lat[:10]...)
				med[side], p99[side] = quantile(lat, 0.5), quantile(lat, 0.99)
			}
			roundMed = append(roundMed, float64(med[0])/float64(med[1]))
			roundP99 = append(roundP99, float64(p99[0])/float64(p99[1]))
		}
	}
	for side, name := range []string{"10MB", "tiny"} {
		b.ReportMetric(us(quantile(all[side], 0.5)), "µs-med-"+name)
		b.ReportMetric(us(quantile(all[side], 0.99)), "µs-p99-"+name)
		b.ReportMetric(us(quantile(first10[side], 0.5)), "µs-first10-med-"+name)
	}
	b.ReportMetric(float64(quantile(all[0], 0.5))/float64(quantile(all[1], 0.5)), "x-med")
	b.ReportMetric(float64(quantile(all[0], 0.99))/float64(quantile(all[1], 0.99)), "x-p99")
	b.Logf("%d rounds of %d keystrokes per side", rounds, keys)
	for side, name := range []string{"10MB", "tiny"} {
		b.Logf("%-5s min/median/p99/max µs: %.0f / %.0f / %.0f / %.0f; first 10 keys median %.0f", name,
			us(quantile(all[side], 0)), us(quantile(all[side], 0.5)), us(quantile(all[side], 0.99)), us(quantile(all[side], 1)), us(quantile(first10[side], 0.5)))
	}
	for side, name := range []string{"10MB", "tiny"} {
		b.Logf("%-5s server CPU per keystroke, min/median/p99/max µs: %.0f / %.0f / %.0f / %.0f", name,
			us(quantile(allCPU[side], 0)), us(quantile(allCPU[side], 0.5)), us(quantile(allCPU[side], 0.99)), us(quantile(allCPU[side], 1)))
	}
	b.ReportMetric(float64(quantile(allCPU[0], 0.5))/float64(quantile(allCPU[1], 0.5)), "x-cpu-med")
	b.ReportMetric(float64(quantile(allCPU[0], 0.99))/float64(quantile(allCPU[1], 0.99)), "x-cpu-p99")
	b.Logf("ratio per round, median: %s; p99: %s", minMedMax(roundMed), minMedMax(roundP99))
}

// firstKeystrokes opens text in a new server and times n keystrokes typed
// after its second message right away.
func firstKeystrokes(b *testing.B, text string, n int) (lat, cpu []time.Duration) {
	trace := os.Getenv("CHATLS_FEEL_TRACE") != ""
	var env []string
	if trace {
		env = append(env, "GODEBUG=gctrace=1")
	}
	if dir := os.Getenv("CHATLS_FEEL_PROFILE_DIR"); dir != "" {
		// A CPU profile of each server: open, the hover, the keystrokes.
		env = append(env, fmt.Sprintf("CHATLS_CPUPROFILE=%s/keys-%d-%d.prof", dir, len(text), time.Now().UnixNano()))
	}
	e := startLineEditor(b, "", env...)
	uri := e.open("doc.chat", text)
	e.hover(uri)
	at := afterSecondMessage(text)
	lat, cpu = make([]time.Duration, n), make([]time.Duration, n)
	var parts []string
	for i := range n {
		p := lspclient.Position{Line: at.Line, Character: at.Character + i}
		c0 := threadsCPU(e.pid())
		t0 := time.Now()
		e.change(uri, lspclient.TextEdit{Range: lspclient.Range{Start: p, End: p}, NewText: "x"})
		e.hover(uri)
		lat[i] = time.Since(t0)
		cpu[i] = threadsCPU(e.pid()) - c0
		if trace {
			parts = append(parts, fmt.Sprintf("@%.3fs:%.0f/%.0f", t0.Sub(e.started).Seconds(), us(lat[i]), us(cpu[i])))
		}
	}
	if trace {
		traceTo(b, fmt.Sprintf("%d bytes, wall/server-CPU µs per keystroke: %s\nserver stderr:\n%s\n", len(text), strings.Join(parts, " "), e.stderr()))
	}
	return lat, cpu
}

// firstTokenServer speaks Anthropic's Messages stream. Each answer's first
// text chunk is written on its own and timestamped just before; the rest
// follows once the editor has seen it (or after a second), as the tokens
// of a real answer trickle in.
type firstTokenServer struct {
	srv      *httptest.Server
	mu       sync.Mutex
	n        int
	sentAt   map[string]time.Time // first chunk's text → when it was written
	received map[string]chan struct{}
}

func newFirstTokenServer(b *testing.B) *firstTokenServer {
	f := &firstTokenServer{sentAt: map[string]time.Time{}, received: map[string]chan struct{}{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		f.mu.Lock()
		f.n++
		n := f.n
		first := fmt.Sprintf("Answer%d", n)
		seen := make(chan struct{})
		f.received[first] = seen
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		events := anthropicsse.Text(n, "")
		head, tail := events[:2], events[3:]
		anthropicsse.Write(w, head)
		w.(http.Flusher).Flush()
		delta := `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + first + `"}}`
		chunk := "event: content_block_delta\ndata: " + delta + "\n\n"
		f.mu.Lock()
		f.sentAt[first] = time.Now()
		f.mu.Unlock()
		_, _ = io.WriteString(w, chunk)
		w.(http.Flusher).Flush()
		select {
		case <-seen:
		case <-time.After(time.Second):
		case <-r.Context().Done():
			return
		}
		rest := `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" is here. Done` + strconv.Itoa(n) + `."}}`
		_, _ = io.WriteString(w, "event: content_block_delta\ndata: "+rest+"\n\n")
		anthropicsse.Write(w, tail)
	}))
	b.Cleanup(f.srv.Close)
	return f
}

// sawFirst is the editor's hook: it notes when the edit with an answer's
// first chunk arrived.
func (f *firstTokenServer) sawFirst(arrived map[string]time.Time) func(time.Time, []lspclient.TextEdit) {
	return func(at time.Time, edits []lspclient.TextEdit) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, e := range edits {
			for first, ch := range f.received {
				if _, done := arrived[first]; !done && strings.Contains(e.NewText, first) {
					arrived[first] = at
					close(ch)
				}
			}
		}
	}
}

func (f *firstTokenServer) config() string {
	// A model the catalogue does not know has no context window to refuse
	// the 10 MB conversation (3M tokens) against.
	return wireConfig("anthropic", f.srv.URL, "claude-feel-bench")
}

// BenchmarkFirstToken: from the local Anthropic server writing an answer's
// first text chunk to the workspace/applyEdit carrying it arriving at the
// editor, through the real binary. Two sides, alternating send by send:
// a conversation that starts small, and the generated 10 MB one.
func BenchmarkFirstToken(b *testing.B) {
	big := chatgen.Generate(10<<20, 1)
	sends := feelRounds(20)
	var lat [2][]time.Duration
	for b.Loop() {
		type side struct {
			e   *lineEditor
			f   *firstTokenServer
			uri string
			got map[string]time.Time
		}
		var sides [2]*side
		for i, text := range []string{"@You:\nSay hello.\n", big} {
			f := newFirstTokenServer(b)
			e := startLineEditor(b, f.config(), "WIRE_TEST_KEY=test-key")
			s := &side{e: e, f: f, got: map[string]time.Time{}}
			e.onEdit = f.sawFirst(s.got)
			s.uri = e.open("doc.chat", text)
			e.hover(s.uri)
			sides[i] = s
		}
		for n := 1; n <= sends; n++ {
			for k := range 2 {
				i := (n + k) % 2
				s := sides[i]
				if n > 1 || i == 1 {
					ask(b, s.e, s.uri, fmt.Sprintf("Question %d?\n", n))
				}
				sendAndWait(b, s.e, s.uri, n)
				first := fmt.Sprintf("Answer%d", n)
				s.f.mu.Lock()
				d := s.got[first].Sub(s.f.sentAt[first])
				s.f.mu.Unlock()
				lat[i] = append(lat[i], d)
			}
		}
	}
	for i, name := range []string{"small", "10MB"} {
		b.ReportMetric(ms(quantile(lat[i], 0)), "ms-min-"+name)
		b.ReportMetric(ms(quantile(lat[i], 0.5)), "ms-med-"+name)
		b.ReportMetric(ms(quantile(lat[i], 1)), "ms-max-"+name)
		b.Logf("%-5s first token, %d sends, min/median/max ms: %.2f / %.2f / %.2f", name, len(lat[i]),
			ms(quantile(lat[i], 0)), ms(quantile(lat[i], 0.5)), ms(quantile(lat[i], 1)))
	}
}

// ask types a question at the end of the document.
func ask(b *testing.B, e *lineEditor, uri, q string) {
	b.Helper()
	end := e.end(uri)
	e.change(uri, lspclient.TextEdit{Range: lspclient.Range{Start: end, End: end}, NewText: q})
}

// sendAndWait sends the document (the send before may still be finishing:
// a refusal is tried again) and waits for answer n to end with a new @You:.
func sendAndWait(b *testing.B, e *lineEditor, uri string, n int) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := e.command("chatls.send", map[string]any{"uri": uri})
		if err == nil && out["sending"] == true {
			break
		}
		if err == nil || !strings.Contains(err.Error(), "already in flight") || time.Now().After(deadline) {
			b.Fatalf("chatls.send: %v %v\n%s", out, err, e.tail(uri, 10))
		}
		time.Sleep(10 * time.Millisecond)
	}
	done := fmt.Sprintf("Done%d.", n)
	if err := e.waitTail(uri, 6, time.Minute, func(t string) bool {
		i := strings.Index(t, done)
		return i >= 0 && strings.Contains(t[i:], "@You:")
	}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMemoryFeel: the server's own memory (RssAnon) and VmRSS with
// the generated 10 MB document open: after opening, after 1,000 keystrokes
// near its top (typed and deleted alternately, each answered by a hover),
// and after 10, 50 and 100 answers streamed from a local Anthropic server
// into a second, small conversation of the same server (the 10 MB one is
// 3M tokens, more than any model's window, so chatls refuses to send it),
// then once more 5 s later. The other side, in the same round, does the
// same with the 70-byte document open: the floor of the binary.
// "into10MB" streams the 100 answers into the 10 MB document itself (a
// model the catalogue does not know has no window to refuse it against):
// each request is then a 10 MB body.
func BenchmarkMemoryFeel(b *testing.B) {
	big := chatgen.Generate(10<<20, 1)
	b.Run("beside", func(b *testing.B) {
		rounds := feelRounds(2)
		var anon, rss [2]map[string][]float64
		for i := range 2 {
			anon[i], rss[i] = map[string][]float64{}, map[string][]float64{}
		}
		for b.Loop() {
			for r := range rounds {
				for k := range 2 {
					side := (r + k) % 2
					text := big
					if side == 1 {
						text = feelTinyDoc
					}
					memoryFeel(b, text, false, func(point string, rssMB, anonMB float64) {
						anon[side][point] = append(anon[side][point], anonMB)
						rss[side][point] = append(rss[side][point], rssMB)
					})
				}
			}
		}
		for side, name := range []string{"10MB", "tiny"} {
			for _, p := range memoryPoints {
				b.Logf("%-5s %-12s RssAnon %s MB, VmRSS %s MB", name, p, minMedMax(anon[side][p]), minMedMax(rss[side][p]))
			}
			b.ReportMetric(quantileF(anon[side]["keys1000"], 0.5), "MB-anon-keys1000-"+name)
			b.ReportMetric(quantileF(anon[side]["answers100"], 0.5), "MB-anon-answers100-"+name)
		}
	})
	b.Run("into10MB", func(b *testing.B) {
		for b.Loop() {
			memoryFeel(b, big, true, func(point string, rssMB, anonMB float64) {
				b.Logf("%-12s RssAnon %.2f MB, VmRSS %.2f MB", point, anonMB, rssMB)
			})
		}
	})
}

var memoryPoints = []string{"open", "keys1000", "answers10", "answers50", "answers100", "answers100+5s"}

func memoryFeel(b *testing.B, text string, into bool, note func(point string, rss, anon float64)) {
	f := newFirstTokenServer(b)
	env := []string{"WIRE_TEST_KEY=test-key"}
	trace := os.Getenv("CHATLS_FEEL_TRACE") != ""
	if trace {
		env = append(env, "GODEBUG=gctrace=1")
	}
	e := startLineEditor(b, f.config(), env...)
	e.onEdit = f.sawFirst(map[string]time.Time{})
	uri := e.open("doc.chat", text)
	e.hover(uri)
	read := func(point string) {
		rssMB, anonMB, ok := residentMB(e.pid())
		if !ok {
			b.Fatal("no /proc/PID/status")
		}
		note(point, rssMB, anonMB)
	}
	read("open")
	at := afterSecondMessage(text)
	typed := lspclient.Range{Start: at, End: lspclient.Position{Line: at.Line, Character: at.Character + 1}}
	for i := range 1000 {
		edit := lspclient.TextEdit{Range: lspclient.Range{Start: at, End: at}, NewText: "x"}
		if i%2 == 1 {
			edit = lspclient.TextEdit{Range: typed}
		}
		e.change(uri, edit)
		e.hover(uri)
	}
	read("keys1000")
	chat := uri
	if !into {
		chat = e.open("ask.chat", "@You:\nSay hello.\n")
	}
	for n := 1; n <= 100; n++ {
		if n > 1 || into {
			ask(b, e, chat, fmt.Sprintf("Question %d?\n", n))
		}
		sendAndWait(b, e, chat, n)
		switch n {
		case 10, 50, 100:
			e.hover(chat)
			read(fmt.Sprintf("answers%d", n))
		}
	}
	time.Sleep(5 * time.Second)
	read("answers100+5s")
	if trace {
		traceTo(b, fmt.Sprintf("memory, %d bytes: server stderr:\n%s\n", len(text), e.stderr()))
	}
}

// traceTo appends s to the file CHATLS_FEEL_TRACE names.
func traceTo(b *testing.B, s string) {
	f, err := os.OpenFile(os.Getenv("CHATLS_FEEL_TRACE"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	_, _ = f.WriteString(s)
}

func quantile(d []time.Duration, q float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func quantileF(d []float64, q float64) float64 {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func minMedMax(d []float64) string {
	return fmt.Sprintf("%.2f / %.2f / %.2f", quantileF(d, 0), quantileF(d, 0.5), quantileF(d, 1))
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

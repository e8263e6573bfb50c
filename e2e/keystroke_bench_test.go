package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc/chatgen"
	"github.com/chatls/chatls/internal/lspclient"
)

// Benchmarks through the real binary over stdio (docs/performance.md,
// "## server"):
//
//	go test ./e2e/ -run '^$' -bench . -benchtime=2s

// BenchmarkKeystroke10MB: one character typed (then deleted, alternately) at
// the end of the generated 10 MB document, then a hover at 0:0; an
// iteration ends with the hover's answer, which the ordered dispatcher
// sends only after it applied the change. "didChange" sends the change as
// is; "lspclient.Change" goes through the scripted editor, which also
// splices its own 10 MB copy and converts the position by scanning from the
// start (client cost, shown for comparison).
func BenchmarkKeystroke10MB(b *testing.B) {
	text := chatgen.Generate(10<<20, 1)
	b.Run("didChange", func(b *testing.B) { benchKeystroke(b, text, endPosition(text), false) })
	b.Run("lspclient.Change", func(b *testing.B) { benchKeystroke(b, text, endPosition(text), true) })
	// The worst case: after the second message, where every later message
	// of the 10 MB document follows the edit.
	b.Run("top", func(b *testing.B) { benchKeystroke(b, text, afterSecondMessage(text), false) })
	// The same in 10 MB of shorter messages (21,704 instead of 15,352), the
	// shape of the conversation issue 17 measured.
	dense := chatgen.GenerateDense(10<<20, 1)
	b.Run("top-dense", func(b *testing.B) { benchKeystroke(b, dense, afterSecondMessage(dense), false) })
}

// BenchmarkKeystrokeSmallDoc is the same on a 70-byte document: the floor
// set by the pipes, JSON and the dispatcher.
func BenchmarkKeystrokeSmallDoc(b *testing.B) {
	text := "@You:\nRun the tests and tell me what fails.\n\n@Assistant:\nSure.\n\n@You:\n"
	benchKeystroke(b, text, endPosition(text), false)
}

// afterSecondMessage is the blank line that ends the document's second
// message: typing there puts a character into that message.
func afterSecondMessage(text string) lspclient.Position {
	markers := 0
	for line, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "@") && strings.HasSuffix(l, ":") {
			if markers++; markers == 3 {
				return lspclient.Position{Line: line - 1}
			}
		}
	}
	panic("fewer than three messages")
}

func benchKeystroke(b *testing.B, text string, end lspclient.Position, viaClient bool) {
	s := start(b, sessionOptions{})
	uri := s.open("big.chat", text)
	hover := func() {
		var out any
		if err := s.c.Call(s.ctx, "textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": 0, "character": 0},
		}, &out); err != nil {
			b.Fatal(err)
		}
	}
	hover() // the document is parsed
	pid := s.c.Process().Process.Pid
	openRSS, openAnon, openOK := residentMB(pid)
	typed := lspclient.Range{Start: end, End: lspclient.Position{Line: end.Line, Character: end.Character + 1}}
	version := int32(1)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		edit := lspclient.TextEdit{Range: lspclient.Range{Start: end, End: end}, NewText: "x"}
		if i%2 == 1 {
			edit = lspclient.TextEdit{Range: typed}
		}
		var err error
		if viaClient {
			err = s.c.Change(s.ctx, uri, []lspclient.TextEdit{edit})
		} else {
			version++
			err = s.c.Notify(s.ctx, "textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": uri, "version": version},
				"contentChanges": []any{map[string]any{"range": edit.Range, "text": edit.NewText}},
			})
		}
		if err != nil {
			b.Fatal(err)
		}
		hover()
	}
	b.StopTimer()
	// The server's resident memory after opening and after the keystrokes
	// (with -benchtime=1000x: after 1,000 of them), issue 17's measure.
	// MB-anon is the part that is the server's own memory: VmRSS also
	// counts the pages of the 80 MB binary it maps (~30 MB, file-backed and
	// shared with every other chatls).
	if rss, anon, ok := residentMB(pid); ok && openOK {
		b.ReportMetric(openRSS, "MB-rss-open")
		b.ReportMetric(openAnon, "MB-anon-open")
		b.ReportMetric(rss, "MB-rss")
		b.ReportMetric(anon, "MB-anon")
	}
}

// residentMB is VmRSS and RssAnon of process pid in MB (Linux).
func residentMB(pid int) (rss, anon float64, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, false
	}
	found := 0
	for _, line := range strings.Split(string(data), "\n") {
		key, rest, _ := strings.Cut(line, ":")
		kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
		switch {
		case err != nil:
		case key == "VmRSS":
			rss, found = float64(kb)/1024, found+1
		case key == "RssAnon":
			anon, found = float64(kb)/1024, found+1
		}
	}
	return rss, anon, found == 2
}

// BenchmarkApproveToResultBashTrue: a pending `true` bash call is approved
// by editing its status word; an iteration ends when the server's edit has
// replaced the placeholder with the result. Setup (appending the next turn)
// is not timed. Compare BenchmarkSpawnBashTrue.
func BenchmarkApproveToResultBashTrue(b *testing.B) {
	s := start(b, sessionOptions{})
	head := "@You:\nRun true, please.\n"
	uri := s.open("approve.chat", head)
	s.settle(uri)
	pid := s.c.Process().Process.Pid
	var serverCPU time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		// Each iteration replaces the previous turn, so the document keeps
		// one size and the figure does not grow with the iteration count.
		id := fmt.Sprintf("toolu_b%d", i)
		placeholder := "`" + id + "`\n\n```flemma:tool status=pending"
		turn := "\n@Assistant:\nRunning it.\n\n**Tool Use:** `bash` (`" + id + "`)\n\n```json\n" +
			`{"command":"true","label":"nothing"}` + "\n```\n\n@You:\n\n**Tool Result:** " + placeholder + "\n```\n"
		current := s.c.Doc(uri).Text
		if err := s.c.Change(s.ctx, uri, []lspclient.TextEdit{{Range: lspclient.Range{Start: endPosition(head), End: endPosition(current)}, NewText: turn}}); err != nil {
			b.Fatal(err)
		}
		s.settle(uri)
		cpuBefore := threadsCPU(pid)
		b.StartTimer()

		if err := s.c.Replace(s.ctx, uri, placeholder, strings.Replace(placeholder, "pending", "approved", 1)); err != nil {
			b.Fatal(err)
		}
		done := "`" + id + "`\n\n```\n(no output)\n```"
		if err := s.c.WaitFor(20*time.Second, "result of "+id, func(st *lspclient.State) bool {
			return strings.Contains(st.Text(uri), done)
		}); err != nil {
			b.Fatalf("%v\n%s", err, s.c.Doc(uri).Text)
		}
		b.StopTimer()
		serverCPU += threadsCPU(pid) - cpuBefore
		b.StartTimer()
	}
	// The server's own CPU per approval: steadier than wall time on a
	// loaded machine, which mostly measures waiting for a core.
	b.ReportMetric(float64(serverCPU.Microseconds())/float64(b.N), "server-cpu-µs/op")
}

// threadsCPU is the CPU time all threads of process pid have used so far
// (the first field of /proc/PID/task/TID/schedstat, in nanoseconds).
func threadsCPU(pid int) time.Duration {
	var total time.Duration
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}

// BenchmarkSpawnBashTrue is the floor: starting `bash -c true` directly.
func BenchmarkSpawnBashTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpen10MB: the generated 10 MB document opened, then a hover at
// its last line; an iteration ends with the hover's answer, which needs the
// parse and the line index. Each iteration opens a new file and closes the
// previous one (untimed).
func BenchmarkOpen10MB(b *testing.B) {
	text := chatgen.Generate(10<<20, 1)
	last := endPosition(text)
	s := start(b, sessionOptions{})
	prev := ""
	pid := s.c.Process().Process.Pid
	cpuBefore := threadsCPU(pid)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		if prev != "" {
			if err := s.c.Notify(s.ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": prev}}); err != nil {
				b.Fatal(err)
			}
		}
		name := fmt.Sprintf("big%d.chat", i)
		if err := os.WriteFile(filepath.Join(s.ws, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		uri := lspclient.PathURI(filepath.Join(s.ws, name))
		if err := s.c.Open(s.ctx, uri, text); err != nil {
			b.Fatal(err)
		}
		var out any
		if err := s.c.Call(s.ctx, "textDocument/hover", map[string]any{
			"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": last.Line, "character": 0},
		}, &out); err != nil {
			b.Fatal(err)
		}
		prev = uri
	}
	// The server's CPU per open (with its share of the diagnostics that
	// follow): steadier than wall time, which also counts the scripted
	// editor encoding 10 MB and any wait for a core.
	b.ReportMetric(float64((threadsCPU(pid)-cpuBefore).Microseconds())/1000/float64(b.N), "server-cpu-ms/op")
}

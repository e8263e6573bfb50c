package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatls/chatls/internal/testfs"
)

// BenchmarkSendAgainstTheSDK times `chatls send FILE` against the floor: a
// minimal program (testdata/minclient) streaming the same answer through
// the same SDK (openai-go, Chat Completions) from the same local server
// into the file. Rounds alternate the two; it reports the median ratio of
// wall time and of CPU time (user + system of the process and its
// children), for a text answer and for one with 50 tool calls (which
// chatls answers with 50 placeholders, then exits 2).
//
//	go test ./e2e -run '^$' -bench SendAgainstTheSDK -benchtime 1x
func BenchmarkSendAgainstTheSDK(b *testing.B) {
	minclient := filepath.Join(b.TempDir(), "minclient")
	if out, err := exec.Command("go", "build", "-o", minclient, "./testdata/minclient").CombinedOutput(); err != nil {
		b.Fatalf("building minclient: %v\n%s", err, out)
	}
	for _, shape := range []struct {
		name  string
		body  string
		wants int // exit code of chatls send
	}{
		{"text", chatStream(2000, 0), 0},
		{"50 tool calls", chatStream(200, 50), 2},
	} {
		b.Run(shape.name, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, shape.body)
			}))
			defer srv.Close()
			base := srv.URL + "/v1"
			cfg := filepath.Join(b.TempDir(), "config")
			testfs.Write(b, filepath.Join(cfg, "chatls", "config.toml"), slowConfig(base))
			state := b.TempDir()
			const rounds = 12
			var wall, cpu [2][]time.Duration
			for i := 0; i < rounds; i++ {
				for side := 0; side < 2; side++ {
					dir := b.TempDir()
					file := filepath.Join(dir, "a.chat")
					testfs.Write(b, file, "@You:\nwrite me a long answer\n")
					var cmd *exec.Cmd
					if side == 0 {
						cmd = exec.Command(binary, "send", "a.chat")
						cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+state)
					} else {
						cmd = exec.Command(minclient, base, "a.chat")
					}
					cmd.Dir = dir
					start := time.Now()
					out, err := cmd.CombinedOutput()
					elapsed := time.Since(start)
					code := cmd.ProcessState.ExitCode()
					if side == 0 && code != shape.wants || side == 1 && err != nil {
						b.Fatalf("side %d: exit %d: %v\n%s", side, code, err, out)
					}
					wall[side] = append(wall[side], elapsed)
					cpu[side] = append(cpu[side], cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
				}
			}
			ratio := func(x [2][]time.Duration) (min, med, max float64) {
				var r []float64
				for i := range x[0] {
					r = append(r, float64(x[0][i])/float64(x[1][i]))
				}
				slices.Sort(r)
				return r[0], r[len(r)/2], r[len(r)-1]
			}
			wmin, wmed, wmax := ratio(wall)
			cmin, cmed, cmax := ratio(cpu)
			b.ReportMetric(wmed, "wall-ratio")
			b.ReportMetric(cmed, "cpu-ratio")
			b.Logf("%s: wall chatls/minclient min %.2f median %.2f max %.2f (chatls median %s, minclient %s); CPU min %.2f median %.2f max %.2f (chatls median %s, minclient %s)",
				shape.name, wmin, wmed, wmax, median(wall[0]), median(wall[1]), cmin, cmed, cmax, median(cpu[0]), median(cpu[1]))
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// chatStream is a Chat Completions stream of words text chunks and then
// calls tool calls (bash, each its own index), ending with usage.
func chatStream(words, calls int) string {
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}` + "\n\n"
	}
	var b strings.Builder
	b.WriteString(chunk(`{"role":"assistant","content":""}`, ""))
	for i := 0; i < words; i++ {
		b.WriteString(chunk(fmt.Sprintf(`{"content":"word%d "}`, i), ""))
	}
	for i := 0; i < calls; i++ {
		b.WriteString(chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":"bash","arguments":""}}]}`, i, i), ""))
		b.WriteString(chunk(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":"{\"command\":\"echo %d\",\"timeout\":null}"}}]}`, i, i), ""))
	}
	finish := "stop"
	if calls > 0 {
		finish = "tool_calls"
	}
	b.WriteString(chunk(`{}`, finish))
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2000,"total_tokens":2005}}` + "\n\ndata: [DONE]\n\n")
	return b.String()
}

package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/chatdoc/chatgen"
)

// BenchmarkRequestLeaves times a send from its start (the prompt of a
// parsed conversation, as the session has it) to the request body fully
// received by a local server, against encoding/json marshalling the same
// body, for 1 MB and 10 MB conversations. Rounds alternate the two in one
// run; it reports the ratios (send / marshal) min, median and max.
//
//	go test ./provider -run '^$' -bench RequestLeaves -benchtime 1x
func BenchmarkRequestLeaves(b *testing.B) {
	for _, api := range []struct{ name, api, model string }{
		{"anthropic", "anthropic", "claude-sonnet-4-6"},
		{"openai-chat", "openai-chat", "gpt-4.1"},
	} {
		for _, size := range []struct {
			name  string
			bytes int
		}{{"1MB", 1 << 20}, {"10MB", 10 << 20}} {
			b.Run(api.name+"/"+size.name, func(b *testing.B) {
				benchRequestLeaves(b, api.api, api.model, size.bytes)
			})
		}
	}
}

func benchRequestLeaves(b *testing.B, api, model string, size int) {
	doc := chatdoc.Parse(chatgen.Generate(size, 1))
	p, _ := BuildPrompt(doc, PromptOptions{})
	// The body value the request marshals, built outside the timing of
	// the baseline: encoding/json alone is the floor.
	pr, err := resolveParams(Family(api), "", model, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	var value any
	switch api {
	case "anthropic":
		value = anthropicRequest(p, model, pr, nil)
	case "openai-chat":
		value = chatRequest(p, model, "", pr)
	}
	received := make(chan time.Time, 1)
	var got int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got = n
		received <- time.Now()
		// No answer: the client is cancelled once the body is in.
		<-r.Context().Done()
	}))
	defer srv.Close()
	base := srv.URL
	if api == "openai-chat" {
		base += "/v1"
	}
	// Each side starts from a collected heap: a collection the other
	// side's garbage left due would land on whichever runs next.
	send := func() time.Duration {
		runtime.GC()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		start := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			Send(ctx, &Request{API: api, Model: model, Prompt: p, Conn: Conn{BaseURL: base, Key: "k"}}, func(Event) {})
		}()
		at := <-received
		cancel()
		<-done
		return at.Sub(start)
	}
	marshal := func() time.Duration {
		runtime.GC()
		start := time.Now()
		out, err := json.Marshal(value)
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		if len(out) == 0 {
			b.Fatal("empty body")
		}
		return d
	}
	send() // one of each first: the connection, the pools
	marshal()
	const rounds = 30
	var ratios []float64
	var sends, marshals []time.Duration
	for i := 0; i < rounds; i++ {
		var s, m time.Duration
		if i%2 == 0 {
			s, m = send(), marshal()
		} else {
			m, s = marshal(), send()
		}
		sends, marshals = append(sends, s), append(marshals, m)
		ratios = append(ratios, float64(s)/float64(m))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "send/marshal")
	b.Logf("%s, %d-byte body: send to received / json.Marshal min %.2f median %.2f max %.2f (send median %s, marshal %s)",
		api, got, ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1], medianOf(sends), medianOf(marshals))
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

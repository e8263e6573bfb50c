package provider

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A provider that never answers fails the attempt after the idle timeout
// (retried: nothing arrived yet); one that goes silent mid-stream fails
// with what arrived kept and no retry (it would repeat the answer).
func TestSilentProviderTimesOut(t *testing.T) {
	hold := make(chan struct{})
	var requests atomic.Int32
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	_, res, err := send(t, &Request{API: "anthropic", Model: "m", Prompt: simplePrompt(), Retry: RetryPolicy{Max: 1},
		Conn: Conn{BaseURL: silent.URL, Key: "k", IdleTimeout: 100 * time.Millisecond}})
	api, ok := err.(*APIError)
	if !ok || api.Type != "timeout" || !strings.HasPrefix(api.Message, "no answer from the provider") || res.Attempts != 2 || requests.Load() != 2 {
		t.Fatalf("err %#v attempts %d requests %d", err, res.Attempts, requests.Load())
	}

	firstEvents := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half an ans\"}}\n\n"
	stalls := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, firstEvents)
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	defer stalls.Close()
	defer close(hold) // before the servers close: they wait for their handlers
	got, res, err := send(t, &Request{API: "anthropic", Model: "m", Prompt: simplePrompt(), Retry: RetryPolicy{Max: 3},
		Conn: Conn{BaseURL: stalls.URL, Key: "k", IdleTimeout: 100 * time.Millisecond}})
	api, ok = err.(*APIError)
	if !ok || api.Type != "timeout" || res.Attempts != 1 || got.text == "" {
		t.Fatalf("err %#v attempts %d text %q", err, res.Attempts, got.text)
	}
}

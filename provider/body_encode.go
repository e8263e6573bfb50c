package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// encodeBody is json.Marshal of a request body whose last field is its
// growing list (messages, input, contents), byte for byte, built once in
// one buffer sized from the prompt: the list is taken out of body (the
// caller leaves an empty one), body marshalled without it, then each item
// encoded straight into the buffer. json.Marshal would encode the whole
// conversation into a buffer that doubles as it grows, copying it each
// time, then copy the result once more.
func encodeBody[T any](body any, items []T, size int) ([]byte, error) {
	head, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	if !bytes.HasSuffix(head, []byte("[]}")) {
		return nil, fmt.Errorf("request body: the list is not its last field")
	}
	w := &appendWriter{b: make([]byte, 0, len(head)+size)}
	w.b = append(w.b, head[:len(head)-2]...)
	enc := json.NewEncoder(w) // escapes HTML as json.Marshal does
	for i := range items {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		if err := enc.Encode(items[i]); err != nil {
			return nil, err
		}
		w.b = w.b[:len(w.b)-1] // Encode ends each value with a newline
	}
	return append(w.b, "]}"...), nil
}

// appendWriter appends what is written to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// bodySize is about the size of p's request body: its texts, inputs and
// schemas, with room for JSON's quoting and the keys around them (an
// estimate too small only costs the buffer one growth).
func bodySize(p *Prompt) int {
	n := len(p.System)
	for _, t := range p.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema) + 64
	}
	for _, m := range p.Messages {
		n += 32
		for _, part := range m.Parts {
			n += len(part.Text) + len(part.Input) + len(part.ID) + len(part.Name) + 64
			if part.File != nil {
				n += len(part.File.Data)*4/3 + 128
			}
		}
	}
	return n + n/8 + 4096
}

// asBuilt is an SDK middleware that puts body, the request chatls built
// (with "stream":true already), on the SDK's request as it is. The SDKs'
// streaming calls set "stream" themselves by rewriting the body they were
// given (sjson), a second copy of the whole conversation: they are given
// "{}" to rewrite instead, and this swaps the real body in before the
// request goes out. The headers, the URL and the authentication stay the
// SDK's.
func asBuilt(body []byte) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.Body, _ = req.GetBody()
		return next(req)
	}
}

// placeholderBody is what the SDKs get to set "stream" in (asBuilt).
var placeholderBody = []byte("{}")

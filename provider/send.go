package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Conn is how to reach an API: from trusted settings only (SPEC §7 "Keys
// and trust").
type Conn struct {
	BaseURL string
	Key     string
	Headers map[string]string
	// Project and Location are Vertex AI's.
	Project, Location string
	HTTP              *http.Client  // nil: a client that fails after IdleTimeout of silence (streams are long, so no overall timeout)
	IdleTimeout       time.Duration // 0: DefaultIdleTimeout
}

func (c Conn) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Transport: idleTransport{base: http.DefaultTransport, idle: cmp.Or(c.IdleTimeout, DefaultIdleTimeout)}}
}

// Request is one send: the prompt for a model of an API.
type Request struct {
	API        string // anthropic | openai | openai-chat | gemini | vertex | script
	Entry      string // the provider entry's name (provider-specific parameters may use it)
	Model      string
	Prompt     *Prompt
	Parameters map[string]any
	Info       *ModelInfo // the model's limits and prices (nil: unknown)
	Conn       Conn
	Retry      RetryPolicy
	Script     *Script // the responses a script provider plays
}

// Result is what a send did, after its retries.
type Result struct {
	Attempts int
	Usage    Usage
	Duration time.Duration
	Stop     string
}

// Family is the API family a request's thinking signatures belong to
// (SPEC §7: anthropic, openai for Responses, vertex for Gemini).
func Family(api string) string {
	switch api {
	case "anthropic":
		return "anthropic"
	case "openai":
		return "openai"
	case "gemini", "vertex":
		return "vertex"
	}
	return api
}

// Body is the JSON request body chatls sends for the request (what the
// golden tests hold).
func Body(r *Request) ([]byte, error) {
	pr, err := resolveParams(Family(r.API), r.Entry, r.Model, r.Parameters, r.Info)
	if err != nil {
		return nil, err
	}
	size := bodySize(r.Prompt)
	switch r.API {
	case "anthropic":
		body := anthropicRequest(r.Prompt, r.Model, pr, r.Info)
		msgs := body.Messages
		body.Messages = []anthropicMsg{}
		return encodeBody(body, msgs, size)
	case "openai":
		body := responsesRequest(r.Prompt, r.Model, pr, r.Info)
		input := body.Input
		body.Input = []any{}
		return encodeBody(body, input, size)
	case "openai-chat":
		body := chatRequest(r.Prompt, r.Model, r.Entry, pr)
		msgs := body.Messages
		body.Messages = []any{}
		return encodeBody(body, msgs, size)
	case "gemini", "vertex":
		body := geminiRequest(r.Prompt, pr)
		contents := body.Contents
		body.Contents = []geminiContent{}
		return encodeBody(body, contents, size)
	case "script":
		return nil, nil
	}
	return nil, fmt.Errorf("unknown provider type %q (anthropic, openai, openai-chat, gemini, vertex or script)", r.API)
}

// Send runs the request: the answer streams out through emit, retries
// announce themselves as EventRetry. The error is an *APIError, ctx's
// error on cancel, or a mapping error.
func Send(ctx context.Context, r *Request, emit func(Event)) (Result, error) {
	start := time.Now()
	var usage Usage
	var stop string
	watch := func(ev Event) {
		switch ev.Kind {
		case EventUsage:
			usage = ev.Usage
		case EventStop:
			stop = ev.StopReason
		}
		emit(ev)
	}
	body, err := Body(r)
	if err != nil {
		return Result{}, err
	}
	if r.API == "openai-chat" {
		for _, n := range chatNotices(r.Prompt, cmp.Or(r.Entry, r.API)) {
			emit(Event{Kind: EventNotice, Text: n})
		}
	}
	var t transport
	switch r.API {
	case "anthropic":
		t = newAnthropic(r.Conn)
	case "openai":
		t = newResponses(r.Conn)
	case "openai-chat":
		t = newChat(r.Conn)
	case "gemini", "vertex":
		if t, err = newGemini(ctx, r.API, r.Model, r.Conn); err != nil {
			return Result{}, err
		}
	case "script":
		if r.Script == nil {
			return Result{}, fmt.Errorf("the script provider has no responses (providers.NAME.file)")
		}
		t = r.Script.forPrompt(r.Prompt)
	}
	attempts, err := run(ctx, t, body, r.Retry, watch)
	var api *APIError
	if errors.As(err, &api) {
		api.Hint = hint(r, api.Status)
	}
	return Result{Attempts: attempts, Usage: usage, Duration: time.Since(start), Stop: stop}, err
}

// hint says what to fix for the refusals a user can fix (SPEC §7: "model
// claude-x not found at anthropic").
func hint(r *Request, status int) string {
	entry := cmp.Or(r.Entry, r.API)
	switch status {
	case 401, 403:
		return "the key for " + entry + " was refused; check it"
	case 404:
		return "model " + r.Model + " not found at " + entry
	}
	return ""
}

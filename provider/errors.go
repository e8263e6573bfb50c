package provider

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// errorBody is an error's JSON as the SDK kept it, or the response body
// when the SDK kept none (a proxy's HTML, an empty body).
func errorBody(raw string, resp *http.Response) []byte {
	if strings.TrimSpace(raw) != "" || resp == nil || resp.Body == nil {
		return []byte(raw)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return b
}

// APIError is a request the provider refused or broke off: its HTTP status
// (0 when the stream broke), its error type and message as the provider
// said them, and what the user can do about it.
type APIError struct {
	Status     int           `json:"status,omitempty"`
	Type       string        `json:"type,omitempty"`
	Message    string        `json:"message"`
	RetryAfter time.Duration `json:"-"` // the provider's retry-after, when it said one
	// Retryable: 429, 529, 503, other 5xx, a connection lost before any
	// content (SPEC §7 "Errors and retries").
	Retryable bool   `json:"retryable,omitempty"`
	Hint      string `json:"hint,omitempty"` // what to fix, for 400/401/403/404
}

func (e *APIError) Error() string {
	var b strings.Builder
	if e.Status > 0 {
		fmt.Fprintf(&b, "%d ", e.Status)
	}
	if e.Type != "" {
		b.WriteString(e.Type + ": ")
	}
	b.WriteString(e.Message)
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// ErrStreamCut is a stream that ended without its end event: a failure,
// never a silently short answer.
var ErrStreamCut = errors.New("the response stream ended before the provider finished it")

// statusError builds an APIError from a status and a JSON error body in any
// of the shapes the APIs use: {"error": {"type", "message"}} (Anthropic,
// OpenAI), {"error": {"code", "status", "message"}} (Google), or a bare
// {"type", "message"}.
func statusError(status int, body []byte, retryAfter time.Duration) *APIError {
	e := &APIError{Status: status, RetryAfter: retryAfter}
	var shape struct {
		Type    string `json:"type"`
		Message string `json:"message"`
		Error   *struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &shape) == nil {
		e.Type, e.Message = shape.Type, shape.Message
		if x := shape.Error; x != nil {
			e.Type, e.Message = cmp.Or(x.Type, x.Status), x.Message
			if e.Type == "" {
				if c, ok := x.Code.(string); ok {
					e.Type = c
				}
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(body))
		if len(e.Message) > 500 {
			e.Message = e.Message[:500] + "…"
		}
	}
	if e.Message == "" {
		e.Message = "no error message"
	}
	e.Retryable = status == 429 || status >= 500
	return e
}

// retryReason names a retryable failure for the progress report.
func retryReason(e *APIError) string {
	switch {
	case e.Status == 429 || strings.Contains(e.Type, "rate_limit"):
		return "Rate limited"
	case e.Status == 529 || e.Status == 503 || strings.Contains(e.Type, "overloaded"):
		return "Overloaded"
	case e.Status >= 500:
		return "Server error"
	case e.Type == "timeout":
		return "No answer"
	}
	return "Connection lost"
}

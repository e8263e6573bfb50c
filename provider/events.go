package provider

import (
	"math"
	"strconv"
	"time"

	"github.com/chatls/chatls/chatdoc"
)

// EventKind says what an Event carries.
type EventKind int

const (
	EventText           EventKind = iota + 1 // Text: a piece of the answer
	EventThinkingDelta                       // Text: a piece of visible reasoning
	EventThinking                            // Thinking: a finished block with its signature
	EventToolInputDelta                      // Tool.ID/Name and Text: a piece of a tool call's input
	EventToolUse                             // Tool: a finished call
	EventUsage                               // Usage: tokens so far (the last one counts)
	EventStop                                // StopReason, Truncated
	EventRetry                               // Retry: the attempt failed and will be repeated
	EventIgnored                             // Text: an event type chatls does not know (for the log)
	EventNotice                              // Text: what the request left out of the document, for the user (before the request)
)

// Event is one thing the model's stream said, the same for every API.
type Event struct {
	Kind       EventKind
	Text       string
	Thinking   *ThinkingBlock
	Tool       *ToolCall
	Usage      Usage
	StopReason string
	Truncated  bool // the answer hit max_tokens
	Retry      *Retry
}

// ThinkingBlock is reasoning as the document keeps it (SPEC §7: at the end
// of the message with its signature; redacted data as is).
type ThinkingBlock struct {
	Text      string
	Signature *chatdoc.ThinkingSignature
	Redacted  bool
}

// ToolCall is a tool the model asks to run. Input is the JSON text the
// model sent; InputError is non-empty when it is not a JSON object (kept as
// sent, flagged, never "fixed").
type ToolCall struct {
	ID, Name   string
	Input      string
	InputError string
}

// Usage counts tokens: InputTokens excludes cached ones.
type Usage struct {
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
	ThoughtTokens    int // billed as output where the API counts them apart (Gemini)
}

// Retry says an attempt failed in a way worth repeating.
type Retry struct {
	Attempt, Max int // the attempt about to start (2 …) and the limit of retries
	Wait         time.Duration
	Reason       string // "Rate limited", "Overloaded", "Server error", "Connection lost"
}

// Message is how the progress report says it:
// "Rate limited; retrying in 12 s (2/4)".
func (r *Retry) Message() string {
	return r.Reason + "; retrying in " + seconds(r.Wait) + " (" + strconv.Itoa(r.Attempt-1) + "/" + strconv.Itoa(r.Max) + ")"
}

// seconds is a wait as people read it: "12 s", "0.5 s".
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s >= 10 || s == math.Trunc(s) {
		return strconv.Itoa(int(math.Round(s))) + " s"
	}
	return strconv.FormatFloat(s, 'f', 1, 64) + " s"
}

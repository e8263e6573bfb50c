package acp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// Block is one part of a prompt: text, or a file reference (an absolute
// Path), which goes as a resource link the agent reads itself.
type Block struct {
	Text     string
	Path     string
	MimeType string // of a file reference; "": let the agent tell
}

// StopReason is why the agent ended its turn (ACP's names).
type StopReason string

const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	StopRefusal         StopReason = "refusal"
	StopCancelled       StopReason = "cancelled"
)

// turn is a prompt in progress in one session.
type turn struct {
	mu     sync.Mutex
	on     func(Update)
	closed bool // Prompt returned: on is not called again

	cancelled context.Context // ended on cancel: pending permissions answer "cancelled"
	heard     time.Time       // chatls last finished one of the agent's requests
}

// deliver calls on unless the turn is over.
func (t *turn) deliver(u Update) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.closed {
		t.on(u)
	}
}

func (t *turn) close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
}

// Prompt sends session/prompt and calls on with every session/update of
// the turn, in order, on one goroutine (on must not wait for the agent's
// requests: they wait for on), then with the turn's token usage when the
// agent reports it. It returns the stop reason. Cancelling ctx sends
// session/cancel and waits, at most Spec.CancelGrace, for the agent to end
// the turn (StopCancelled). A fault of the agent ends Prompt with it.
func (a *Agent) Prompt(ctx context.Context, sessionID string, blocks []Block, on func(Update)) (StopReason, error) {
	if err := a.Err(); err != nil {
		return "", err
	}
	prompt, err := contentBlocks(blocks)
	if err != nil {
		return "", err
	}
	cancelled, cancelTurn := context.WithCancel(context.Background())
	defer cancelTurn()
	t := &turn{on: on, cancelled: cancelled, heard: time.Now()}
	a.mu.Lock()
	if a.sessions[sessionID] != nil {
		a.mu.Unlock()
		return "", fmt.Errorf("a prompt is already running in session %s: wait for it or cancel it", sessionID)
	}
	a.sessions[sessionID] = t
	a.mu.Unlock()
	defer func() {
		t.close()
		a.mu.Lock()
		delete(a.sessions, sessionID)
		a.mu.Unlock()
	}()

	reqCtx, giveUp := context.WithCancel(context.Background())
	defer giveUp()
	type answer struct {
		resp sdk.PromptResponse
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := sdk.SendRequest[sdk.PromptResponse](a.conn, reqCtx, sdk.AgentMethodSessionPrompt,
			sdk.PromptRequest{SessionId: sdk.SessionId(sessionID), Prompt: prompt})
		answered <- answer{resp, err}
	}()

	silence := time.NewTimer(a.spec.Silence)
	defer silence.Stop()
	done := ctx.Done()
	var graceOver <-chan time.Time
	for {
		select {
		case r := <-answered:
			if r.err != nil {
				if f := a.faultAfter(r.err); f != nil {
					return "", f
				}
				return "", fmt.Errorf("the agent refused the prompt: %w", r.err)
			}
			if r.resp.Usage != nil {
				t.deliver(turnUsage(r.resp.Usage))
			}
			return StopReason(r.resp.StopReason), nil
		case <-done:
			done = nil
			cancelTurn()
			if err := a.conn.SendNotification(context.Background(), sdk.AgentMethodSessionCancel,
				sdk.CancelNotification{SessionId: sdk.SessionId(sessionID)}); err != nil {
				return StopCancelled, a.faultOr(err)
			}
			grace := time.NewTimer(a.spec.CancelGrace)
			defer grace.Stop()
			graceOver = grace.C
		case <-graceOver:
			return StopCancelled, a.silent("session/cancel", a.spec.CancelGrace)
		case <-a.faulted:
			return "", a.Err()
		case <-silence.C:
			quiet, busy := a.quiet(t)
			if !busy && quiet >= a.spec.Silence {
				return "", a.silent("", a.spec.Silence)
			}
			silence.Reset(max(a.spec.Silence-quiet, time.Millisecond))
		}
	}
}

// quiet is how long the agent has said nothing while chatls was not busy
// with one of its requests.
func (a *Agent) quiet(t *turn) (time.Duration, bool) {
	a.mu.Lock()
	busy, heard := a.busy > 0, t.heard
	a.mu.Unlock()
	if last := a.wire.lastHeard(); last.After(heard) {
		heard = last
	}
	return time.Since(heard), busy
}

// faultOr is the agent's fault, else err.
func (a *Agent) faultOr(err error) error {
	if f := a.faultAfter(err); f != nil {
		return f
	}
	return err
}

// contentBlocks is the prompt as ACP content: text blocks and resource
// links (file:// URIs).
func contentBlocks(blocks []Block) ([]sdk.ContentBlock, error) {
	out := make([]sdk.ContentBlock, 0, len(blocks))
	for _, b := range blocks {
		if b.Path == "" {
			out = append(out, sdk.TextBlock(b.Text))
			continue
		}
		if !filepath.IsAbs(b.Path) {
			return nil, fmt.Errorf("file reference %q is not absolute: resolve it against the document first", b.Path)
		}
		link := sdk.ResourceLinkBlock(filepath.Base(b.Path), (&url.URL{Scheme: "file", Path: b.Path}).String())
		if b.MimeType != "" {
			link.ResourceLink.MimeType = &b.MimeType
		}
		out = append(out, link)
	}
	if len(out) == 0 {
		return nil, errors.New("the prompt is empty: write something after @You:")
	}
	return out, nil
}

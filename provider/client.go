package provider

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/chatls/chatls/config"
)

// transport is one API's way to run a single attempt: send the body, turn
// the stream into events. content is set once the first piece of the
// answer went out (a later failure can't be retried: it would repeat it).
type transport interface {
	attempt(ctx context.Context, body []byte, emit func(Event), content *bool) error
}

// RetryPolicy is how failed attempts repeat: up to Max retries, waiting
// Base·2^n with jitter, at most Cap (a longer retry-after is honoured).
type RetryPolicy struct {
	Max       int
	Base, Cap time.Duration
	// Sleep waits (tests make it instant; it must honour ctx).
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultRetries is send.maxRetries' default.
const DefaultRetries = config.DefaultMaxRetries

func (r RetryPolicy) withDefaults() RetryPolicy {
	if r.Base == 0 {
		r.Base = time.Second
	}
	if r.Cap == 0 {
		r.Cap = 60 * time.Second
	}
	if r.Sleep == nil {
		r.Sleep = sleepCtx
	}
	return r
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// run sends the body with retries: each retry is announced as an
// EventRetry before the wait. The SDKs' own retries are off (one loop).
func run(ctx context.Context, t transport, body []byte, policy RetryPolicy, emit func(Event)) (attempts int, err error) {
	policy = policy.withDefaults()
	for attempt := 1; ; attempt++ {
		content := false
		err = t.attempt(ctx, body, emit, &content)
		if err == nil {
			return attempt, nil
		}
		if ctx.Err() != nil {
			return attempt, ctx.Err()
		}
		var api *APIError
		if !errors.As(err, &api) {
			return attempt, err // not the provider's answer: nothing to retry
		}
		if !api.Retryable || content || attempt > policy.Max {
			return attempt, err
		}
		wait := backoff(policy, attempt, api.RetryAfter)
		emit(Event{Kind: EventRetry, Retry: &Retry{Attempt: attempt + 1, Max: policy.Max, Wait: wait, Reason: retryReason(api)}})
		if err := policy.Sleep(ctx, wait); err != nil {
			return attempt, err
		}
	}
}

// backoff is Base·2^(n-1) with ±25% jitter, capped; retry-after wins.
func backoff(p RetryPolicy, attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := p.Base << (attempt - 1)
	if d > p.Cap || d <= 0 {
		d = p.Cap
	}
	jitter := time.Duration(rand.Int64N(int64(d)/2+1)) - d/4
	return max(d+jitter, time.Millisecond)
}

// parseRetryAfter reads retry-after (seconds or an HTTP date) and
// retry-after-ms.
func parseRetryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("retry-after")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

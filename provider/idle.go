package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// DefaultIdleTimeout is how long a provider may stay silent — before its
// answer starts or between two pieces of it — before the attempt fails.
// Streaming APIs send keep-alive events every few seconds, so two minutes
// of silence is a server that stopped answering, not one that thinks.
const DefaultIdleTimeout = 2 * time.Minute

// errIdle is the attempt's cause when the provider went silent.
type errIdle struct{ after time.Duration }

func (e errIdle) Error() string {
	return "no answer from the provider for " + strconv.Itoa(int(e.after.Seconds())) + " s"
}

// idleTransport cancels a request whose server sends nothing for idle:
// no headers, or no body bytes since the last ones. A per-request timer
// instead of http.Client.Timeout, which would also cut a long healthy stream.
type idleTransport struct {
	base http.RoundTripper
	idle time.Duration
}

func (t idleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	cause := errIdle{t.idle}
	timer := time.AfterFunc(t.idle, func() { cancel(cause) })
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		timer.Stop()
		cancel(nil)
		if errors.Is(context.Cause(ctx), cause) {
			return nil, cause
		}
		return nil, err
	}
	timer.Reset(t.idle)
	resp.Body = &idleBody{ReadCloser: resp.Body, ctx: ctx, cause: cause, timer: timer, idle: t.idle, cancel: cancel}
	return resp, nil
}

type idleBody struct {
	io.ReadCloser
	ctx    context.Context
	cause  errIdle
	timer  *time.Timer
	idle   time.Duration
	cancel context.CancelCauseFunc
	once   sync.Once
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.timer.Reset(b.idle)
	}
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), b.cause) {
		err = b.cause
	}
	return n, err
}

func (b *idleBody) Close() error {
	b.once.Do(func() {
		b.timer.Stop()
		b.cancel(nil)
	})
	return b.ReadCloser.Close()
}

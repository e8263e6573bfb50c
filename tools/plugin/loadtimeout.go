package plugin

import (
	"context"
	"time"
)

type loadTimeoutKey struct{}

// WithLoadTimeout tells a source's Load the load timeout the user
// configured (tools.defaultTimeout), for its messages: the caller may give
// Load a slightly earlier deadline so that the source's own explanation
// arrives before the caller's generic one. MCP sources read it too.
func WithLoadTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, loadTimeoutKey{}, d)
}

// LoadTimeout is the timeout WithLoadTimeout recorded, if any.
func LoadTimeout(ctx context.Context) (time.Duration, bool) {
	d, ok := ctx.Value(loadTimeoutKey{}).(time.Duration)
	return d, ok
}

// loadLimit is how long a load step may take under ctx, at most max, and
// how to name that limit to the user.
func loadLimit(ctx context.Context, max time.Duration) (limit, shown time.Duration) {
	limit, shown = max, max
	if deadline, ok := ctx.Deadline(); ok {
		if rem := time.Until(deadline); rem < limit {
			limit, shown = rem, roundLimit(rem)
			if d, ok := LoadTimeout(ctx); ok {
				shown = d
			}
		}
	}
	return limit, shown
}

// LoadLimit is loadLimit for the MCP source.
func LoadLimit(ctx context.Context, max time.Duration) (limit, shown time.Duration) {
	return loadLimit(ctx, max)
}

// roundLimit names a limit derived from a deadline: whole seconds from
// 0.8 s up (tools.defaultTimeout is whole seconds, minus a small margin),
// else to 10 ms.
func roundLimit(d time.Duration) time.Duration {
	if d >= 800*time.Millisecond {
		return (d + time.Second - 1).Truncate(time.Second)
	}
	return d.Round(10 * time.Millisecond)
}

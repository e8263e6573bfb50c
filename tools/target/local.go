package target

import (
	"context"
	"io"
)

// Local is this machine: the file tools reach it directly; Exec serves
// the tmux layer (the user's own tmux, or an owned session here).
type Local struct{}

func (Local) Name() string { return "" }
func (Local) Kind() string { return "local" }
func (Local) Close() error { return nil }

func (l Local) Exec(ctx context.Context, script string, args []string, stdin io.Reader, out io.Writer) (Exit, error) {
	argv := append([]string{"sh", "-c", wrapScript(script), "chatls"}, args...)
	return runTransport(ctx, "local", argv, stdin, out)
}

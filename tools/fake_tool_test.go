package tools

import "context"

// fakeTool runs a function; tests use it to observe the runner.
type fakeTool struct {
	def Definition
	run func(ctx context.Context, call Call, env Env) Result
}

func (f fakeTool) Definition() Definition { return f.def }

func (f fakeTool) Run(ctx context.Context, call Call, env Env) Result {
	if f.run == nil {
		return Result{Text: "ok"}
	}
	return f.run(ctx, call, env)
}

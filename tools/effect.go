package tools

import "context"

// Effect is what the call would change (Effecter), "" when its tool
// cannot say.
func (r *Registry) Effect(ctx context.Context, call Call, env Env) string {
	t, ok := r.Lookup(call.Name)
	if !ok || env.Target.Remote() {
		return "" // what changes there is not known here
	}
	e, ok := t.(Effecter)
	if !ok {
		return ""
	}
	return e.Effect(ctx, call, env)
}

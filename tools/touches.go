package tools

// Touches is what a call may change on disk, for the checkpoint taken
// before it runs (SPEC §10): the paths of a tool that names them, or the
// whole workspace for one that may change anything (bash, plugin and MCP
// tools not annotated read-only). The zero value: it changes no file.
type Touches struct {
	Paths     []string // canonical
	Workspace bool
}

// None reports a call that changes no file.
func (t Touches) None() bool { return !t.Workspace && len(t.Paths) == 0 }

// Toucher is a tool that can say which files a call may change. A tool
// without it may change anything unless its annotations say it only reads.
type Toucher interface {
	Touches(call Call, env Env) Touches
}

// Touches is what the call may change. A remote target's files are not
// this machine's to checkpoint, and an unknown tool does not run.
func (r *Registry) Touches(call Call, env Env) Touches {
	t, ok := r.Lookup(call.Name)
	if !ok || env.Target.Remote() {
		return Touches{}
	}
	if toucher, ok := t.(Toucher); ok {
		return toucher.Touches(call, env)
	}
	if readOnly, _ := t.Definition().Annotations["readOnlyHint"].(bool); readOnly {
		return Touches{}
	}
	return Touches{Workspace: true}
}

// TouchedPaths resolves the path arguments named by keys as the tool
// will (canonical, relative to the document); a missing or unresolvable
// one makes the whole workspace the scope, so nothing goes unrecorded.
func TouchedPaths(call Call, env Env, keys ...string) Touches {
	var t Touches
	for _, k := range keys {
		shown, _ := StringArg(call.Input, k)
		if shown == "" {
			continue
		}
		p, err := toolPath(env, shown)
		if err != nil {
			return Touches{Workspace: true}
		}
		t.Paths = append(t.Paths, p)
	}
	return t
}

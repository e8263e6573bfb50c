package builtin

import "github.com/chatls/chatls/tools"

// Which files each built-in may change, for the checkpoint before it runs
// (SPEC §10). bash and send_keys say nothing: they may change anything.

// readsOnly is embedded by the built-ins that change no file.
type readsOnly struct{}

func (readsOnly) Touches(tools.Call, tools.Env) tools.Touches { return tools.Touches{} }

func (writeTool) Touches(c tools.Call, env tools.Env) tools.Touches {
	return tools.TouchedPaths(c, env, "path")
}

func (editTool) Touches(c tools.Call, env tools.Env) tools.Touches {
	return tools.TouchedPaths(c, env, "path")
}

func (deleteTool) Touches(c tools.Call, env tools.Env) tools.Touches {
	return tools.TouchedPaths(c, env, "path")
}

func (mkdirTool) Touches(c tools.Call, env tools.Env) tools.Touches {
	return tools.TouchedPaths(c, env, "path")
}

func (copyTool) Touches(c tools.Call, env tools.Env) tools.Touches {
	return tools.TouchedPaths(c, env, "destination")
}

func (moveTool) Touches(c tools.Call, env tools.Env) tools.Touches {
	return tools.TouchedPaths(c, env, "source", "destination")
}

// The git tools change the repository (commit), branches or a remote,
// never the working files: rewind leaves .git alone (SPEC §10).
func (gitTool) Touches(tools.Call, tools.Env) tools.Touches { return tools.Touches{} }

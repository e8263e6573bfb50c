package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/tools/target"
)

// TargetFromSettings makes the target of a `targets.NAME` definition
// (SPEC §8). A definition that cannot be used gives a BrokenTarget, whose
// calls fail with the reason instead of running here.
func TargetFromSettings(name string, ts config.TargetSettings) *TargetEnv {
	var m target.Machine
	switch ts.Type {
	case "ssh":
		s, err := target.NewSSH(name, target.SSHConfig{Host: ts.Host, User: ts.User, Port: ts.Port, IdentityFile: ts.IdentityFile, ConfigFile: ts.SSHConfig})
		if err != nil {
			return BrokenTarget(name, err.Error())
		}
		m = s
	case "container":
		if ts.Container == "" {
			return BrokenTarget(name, fmt.Sprintf("target %s: container is required for type container", name))
		}
		m = target.NewContainer(name, ts.Container, ts.Engine)
	case "local":
		m = target.Local{}
	default:
		return BrokenTarget(name, fmt.Sprintf("target %s: type must be ssh, container or local, not %q", name, ts.Type))
	}
	var tm *target.Tmux
	if ts.Tmux {
		tm = &target.Tmux{M: m, Session: ts.Session, Socket: ts.TmuxSocket, Root: ts.Root}
	}
	if ts.Type == "local" {
		return NewTargetEnv(name, nil, ts.Root, tm)
	}
	return NewTargetEnv(name, m, ts.Root, tm)
}

// OfferedOnTarget is the tool list a document on target t offers the
// model: defs without the built-ins that would act on this machine's
// files, bash with `wait` where there is tmux, plus the tmux tools. The
// texts say where the tools work there instead of "the document's
// directory".
func OfferedOnTarget(t *TargetEnv, defs []Definition) []Definition {
	var out []Definition
	for _, d := range defs {
		builtin := d.Source == "builtin"
		if !OffersOnTarget(t, d.Name, builtin) {
			continue
		}
		if p, ok := builtinNamed(d.Name).(PaneRunner); ok && builtin && t != nil && t.Tmux != nil {
			d = p.PaneDefinition(d, t.Tmux.SessionName())
		}
		if builtin && t.Remote() && RunsOn(t, d.Name, true) != "" {
			d = t.describeDirectory(d)
		}
		out = append(out, d)
	}
	if t != nil && t.Tmux != nil {
		for _, p := range paneOnlyBuiltins() {
			out = append(out, p.Definition())
		}
	}
	return out
}

// describeDirectory replaces "the document's directory" in d's texts with
// where relative paths resolve on the remote target.
func (t *TargetEnv) describeDirectory(d Definition) Definition {
	const local = "the document's directory"
	where := "the login directory on target " + t.Name
	if t.Root != "" {
		where = t.Root + " on target " + t.Name
	}
	d.Description = strings.ReplaceAll(d.Description, local, where)
	quoted, _ := json.Marshal(where)
	d.Schema = json.RawMessage(strings.ReplaceAll(string(d.Schema), local, string(quoted[1:len(quoted)-1])))
	return d
}

// RunsOn names the target a call of tool name runs on ("" when it runs
// here): a built-in that reaches the target, or bash and the tmux tools
// on a target with tmux (the local one included).
func RunsOn(t *TargetEnv, name string, builtin bool) string {
	if t == nil || !builtin {
		return ""
	}
	tool := builtinNamed(name)
	switch {
	case t.Tmux != nil && inPane(tool):
		return t.Label()
	case t.Remote() && isRemoteRunner(tool):
		return t.Name
	}
	return ""
}

// inPane says whether a built-in runs in the pane of a target with tmux.
func inPane(t Tool) bool { return isPaneRunner(t) || isPaneOnly(t) }

// RunsWhere says where a call of tool d on target t runs, for `chatls
// tools --target`: "NAME" or "NAME (tmux)" on the target, "here" on this
// machine (plugins, MCP tools, web_fetch…).
func RunsWhere(t *TargetEnv, d Definition) string {
	on := RunsOn(t, d.Name, d.Source == "builtin")
	switch {
	case on == "":
		return "here"
	case t.Tmux != nil && inPane(builtinNamed(d.Name)):
		return on + " (tmux)"
	}
	return on
}

// RunsOn names the target the call runs on with this env ("" here). A
// built-in's name is never taken by a plugin (the registry keeps the
// built-in), so the name alone decides.
func (e Env) RunsOn(call Call) string { return RunsOn(e.Target, call.Name, true) }

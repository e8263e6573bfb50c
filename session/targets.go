package session

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/chatls/chatls/chatdoc"
	"github.com/chatls/chatls/config"
	"github.com/chatls/chatls/frontmatter"
	"github.com/chatls/chatls/tools"
)

// targetPool keeps one TargetEnv per target definition, so an SSH master
// connection and a tmux session are shared by the calls to it; Close ends
// them when the session does.
type targetPool struct {
	mu   sync.Mutex
	envs map[string]*tools.TargetEnv
}

// chooseTarget is the target a document's calls run on (SPEC §8): the
// frontmatter's flemma.opt.target, else the settings' target; nil for
// this machine. A chosen target that cannot be used is returned with its
// problem set, so its calls fail instead of running here. trusted says
// whether the document's workspace is trusted; it is asked only when the
// document itself chose.
func chooseTarget(eff config.Effective, doc *chatdoc.Document, trusted func() bool, pool *targetPool) *tools.TargetEnv {
	name, fromDocument := eff.Target, false
	if doc != nil && doc.Frontmatter != nil {
		for _, op := range frontmatter.Evaluate(doc.Frontmatter).Options {
			if op.Path == "target" && op.Op == "set" && len(op.Values) == 1 {
				if s, ok := op.Values[0].(string); ok {
					name, fromDocument = s, true
				}
			}
		}
	}
	if name == "" || name == "local" && eff.Targets["local"].Type == "" {
		return nil
	}
	fromUntrusted := eff.TargetFromUntrusted
	if fromDocument {
		fromUntrusted = !trusted()
	}
	ts, ok := eff.Targets[name]
	switch {
	case !ok:
		return tools.BrokenTarget(name, fmt.Sprintf("target %s is not defined in your trusted settings (targets.%s); nothing was run", name, name))
	case fromUntrusted && !ts.Untrusted:
		return tools.BrokenTarget(name, fmt.Sprintf("target %s was chosen by an untrusted workspace or document; only targets with untrusted = true may be (add the workspace to trust.workspaces); nothing was run", name))
	}
	return pool.get(name, ts)
}

func (p *targetPool) get(name string, ts config.TargetSettings) *tools.TargetEnv {
	data, _ := json.Marshal(ts)
	key := name + "\x00" + string(data)
	p.mu.Lock()
	defer p.mu.Unlock()
	if env, ok := p.envs[key]; ok {
		return env
	}
	env := tools.TargetFromSettings(name, ts)
	if p.envs == nil {
		p.envs = map[string]*tools.TargetEnv{}
	}
	p.envs[key] = env
	return env
}

// Close ends every target's connections.
func (p *targetPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, env := range p.envs {
		env.Close()
	}
	p.envs = nil
}

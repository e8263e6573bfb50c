package config

// TargetSettings is a `targets.NAME` entry (SPEC §8): where tools run.
// Only trusted layers define targets; any layer may choose one with
// `target`, an untrusted one only a target marked untrusted = true.
type TargetSettings struct {
	Type         string `json:"type" toml:"type"` // ssh | container | local
	Host         string `json:"host,omitempty" toml:"host,omitempty"`
	User         string `json:"user,omitempty" toml:"user,omitempty"`
	Port         int    `json:"port,omitempty" toml:"port,omitempty"`
	IdentityFile string `json:"identityFile,omitempty" toml:"identityFile,omitempty"`
	// SSHConfig is an ssh_config file passed as ssh -F (default: ~/.ssh/config).
	SSHConfig string `json:"sshConfig,omitempty" toml:"sshConfig,omitempty"`
	Container string `json:"container,omitempty" toml:"container,omitempty"`
	Engine    string `json:"engine,omitempty" toml:"engine,omitempty"` // docker | podman | auto
	Root      string `json:"root,omitempty" toml:"root,omitempty"`
	Tmux      bool   `json:"tmux,omitempty" toml:"tmux,omitempty"`
	Session   string `json:"session,omitempty" toml:"session,omitempty"`
	// TmuxSocket is a tmux server socket (tmux -S) instead of the default server.
	TmuxSocket  string   `json:"tmuxSocket,omitempty" toml:"tmuxSocket,omitempty"`
	AutoApprove []string `json:"autoApprove,omitempty" toml:"autoApprove,omitempty"`
	Deny        []string `json:"deny,omitempty" toml:"deny,omitempty"`
	// Untrusted lets a document of an untrusted workspace choose it.
	Untrusted bool `json:"untrusted,omitempty" toml:"untrusted,omitempty"`
}

// mergeTargets adds l's targets (trusted layers only) and its choice.
func mergeTargets(e *Effective, l Settings) {
	for name, t := range l.Targets {
		if e.Targets == nil {
			e.Targets = map[string]TargetSettings{}
		}
		e.Targets[name] = t
	}
	if l.Target != "" {
		e.Target = l.Target
	}
}

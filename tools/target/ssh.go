package target

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// SSHConfig is an ssh target's connection settings (SPEC §8).
type SSHConfig struct {
	Host         string // a host name or an ~/.ssh/config alias
	User         string
	Port         int
	IdentityFile string
	// ConfigFile is passed as ssh -F (default: the user's ~/.ssh/config).
	ConfigFile string
	// Options are more -o options from trusted settings (never one that
	// turns host key checking off: NewSSH refuses those).
	Options []string
}

// SSH runs scripts through the system ssh client over one ControlMaster
// connection, opened on first use, reused, reopened when it died, closed
// by Close. The user's agent, known_hosts and ssh config apply.
type SSH struct {
	name string
	cfg  SSHConfig
	dir  string // holds the control socket

	mu      sync.Mutex // held while the master is checked or opened
	checked bool       // the master was seen alive by this process
}

// NewSSH prepares the target; nothing connects until the first Exec.
func NewSSH(name string, cfg SSHConfig) (*SSH, error) {
	if cfg.Host == "" {
		return nil, fmt.Errorf("target %s: host is required for type ssh", name)
	}
	if strings.HasPrefix(cfg.Host, "-") || strings.HasPrefix(cfg.User, "-") {
		return nil, fmt.Errorf("target %s: host and user must not start with '-'", name)
	}
	for _, o := range cfg.Options {
		k, v, _ := strings.Cut(strings.ToLower(strings.ReplaceAll(o, " ", "=")), "=")
		if k == "stricthostkeychecking" && v != "yes" && v != "ask" || k == "userknownhostsfile" && v == "/dev/null" {
			return nil, fmt.Errorf("target %s: option %q would accept any host key; chatls never turns host key checking off", name, o)
		}
	}
	dir, err := os.MkdirTemp("", "chatls-ssh-")
	if err != nil {
		return nil, err
	}
	return &SSH{name: name, cfg: cfg, dir: dir}, nil
}

func (s *SSH) Name() string { return s.name }
func (s *SSH) Kind() string { return "ssh" }

// ControlSocket is the master connection's socket (ssh -S), for
// diagnostics: `ssh -S SOCKET -O check HOST`.
func (s *SSH) ControlSocket() string { return s.socket() }

// socket is the control socket's path: short, as a unix socket path is
// limited to about 100 bytes.
func (s *SSH) socket() string {
	sum := sha256.Sum256([]byte(s.name))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:6]))
}

// args are the options every ssh invocation of this target gets.
// BatchMode: no prompt can wait for a user nobody shows it to.
func (s *SSH) args() []string {
	a := []string{"-S", s.socket(), "-o", "BatchMode=yes", "-o", "ConnectTimeout=15"}
	if s.cfg.ConfigFile != "" {
		a = append(a, "-F", s.cfg.ConfigFile)
	}
	if s.cfg.User != "" {
		a = append(a, "-l", s.cfg.User)
	}
	if s.cfg.Port != 0 {
		a = append(a, "-p", strconv.Itoa(s.cfg.Port))
	}
	if s.cfg.IdentityFile != "" {
		a = append(a, "-i", s.cfg.IdentityFile)
	}
	for _, o := range s.cfg.Options {
		a = append(a, "-o", o)
	}
	return a
}

// Exec runs the script over the master connection (opened or reopened
// first). The remote login shell parses the command line, so every word
// is quoted.
func (s *SSH) Exec(ctx context.Context, script string, args []string, stdin io.Reader, out io.Writer) (Exit, error) {
	if err := s.ensureMaster(ctx); err != nil {
		return Exit{}, err
	}
	remote := "sh -c " + quote(wrapScript(script)) + " chatls"
	if len(args) > 0 {
		remote += " " + shellWords(args)
	}
	argv := append(append([]string{"ssh"}, s.args()...), "-o", "ControlMaster=no", "-T", s.cfg.Host, remote)
	return runTransport(ctx, s.name, argv, stdin, out)
}

// ensureMaster checks the master (one round trip on the local socket) and
// opens it when missing: ssh -f returns once authenticated and leaves the
// master in the background; ControlPersist bounds how long it outlives an
// idle or crashed chatls.
func (s *SSH) ensureMaster(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	check := exec.CommandContext(ctx, "ssh", append(append(s.args(), "-O", "check"), s.cfg.Host)...)
	if check.Run() == nil {
		s.checked = true
		return nil
	}
	os.Remove(s.socket()) // a dead master's socket
	// Its stderr is a file, not a pipe: the master keeps it open.
	errFile, err := os.CreateTemp(s.dir, "master-*.log")
	if err != nil {
		return &Unreachable{Target: s.name, Said: err.Error()}
	}
	defer os.Remove(errFile.Name())
	defer errFile.Close()
	argv := append(s.args(), "-M", "-N", "-f", "-o", "ControlPersist=600", "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3", s.cfg.Host)
	open := exec.CommandContext(ctx, "ssh", argv...)
	open.Stdin, open.Stdout, open.Stderr = nil, nil, errFile
	if err := open.Run(); err != nil {
		said, _ := os.ReadFile(errFile.Name())
		msg := strings.TrimSpace(string(said))
		if msg == "" {
			msg = err.Error()
		}
		return &Unreachable{Target: s.name, Said: strings.ReplaceAll(msg, "\r\n", "; ")}
	}
	s.checked = true
	return nil
}

// Close asks the master to exit and removes the socket directory.
func (s *SSH) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checked {
		exec.Command("ssh", append(append(s.args(), "-O", "exit"), s.cfg.Host)...).Run()
		s.checked = false
	}
	return os.RemoveAll(s.dir)
}

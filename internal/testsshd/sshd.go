// Package testsshd starts a real sshd on a free localhost port for tests:
// its own host key, an authorized client key and an ssh_config naming
// every file, so nothing of the account's ~/.ssh is read (ssh finds ~
// through the account database, not $HOME).
package testsshd

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Server is a running sshd.
type Server struct {
	Dir        string // everything lives here
	Port       int
	User       string
	ConfigFile string // ssh -F: port, user, key, known_hosts
	Host       string // the Host alias in ConfigFile
	cmd        *exec.Cmd
}

// Available says why sshd cannot run here ("" when it can).
func Available() string {
	for _, p := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			return p + " is not installed (install openssh-server and openssh-client)"
		}
	}
	return ""
}

// Start starts sshd for t, stopped at cleanup. Missing sshd skips the
// test unless CHATLS_REQUIRE_SSHD is set (CI), which fails it.
func Start(t testing.TB) *Server {
	t.Helper()
	if why := Available(); why != "" {
		if os.Getenv("CHATLS_REQUIRE_SSHD") != "" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	dir := t.TempDir()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "host_key"))
	run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "client_key"))
	pub, err := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "authorized_keys"), string(pub))
	if os.Geteuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	}
	port := freePort(t)
	write(t, filepath.Join(dir, "sshd_config"), strings.Join([]string{
		"Port " + fmt.Sprint(port), "ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(dir, "host_key"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"StrictModes no", "UsePAM no", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes", "PermitRootLogin prohibit-password", "LogLevel INFO", "MaxSessions 100", "MaxStartups 100",
	}, "\n")+"\n")
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(hostPub))
	write(t, filepath.Join(dir, "known_hosts"), fmt.Sprintf("[127.0.0.1]:%d %s %s\n", port, fields[0], fields[1]))
	s := &Server{Dir: dir, Port: port, User: u.Username, Host: "chatls-test", ConfigFile: filepath.Join(dir, "ssh_config")}
	write(t, s.ConfigFile, strings.Join([]string{
		"Host chatls-test", "  HostName 127.0.0.1", fmt.Sprintf("  Port %d", port), "  User " + u.Username,
		"  IdentityFile " + filepath.Join(dir, "client_key"), "  IdentitiesOnly yes", "  IdentityAgent none",
		"  UserKnownHostsFile " + filepath.Join(dir, "known_hosts"), "  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes", "  LogLevel ERROR",
	}, "\n")+"\n")

	s.cmd = exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var said []string
		for sc.Scan() {
			said = append(said, sc.Text())
			if strings.Contains(sc.Text(), "Server listening on") {
				ready <- ""
				break
			}
		}
		if len(said) > 0 && !strings.Contains(said[len(said)-1], "Server listening on") {
			ready <- strings.Join(said, "\n")
		}
		for sc.Scan() { // keep the pipe drained
		}
	}()
	select {
	case why := <-ready:
		if why != "" {
			t.Fatalf("sshd did not start: %s", why)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("sshd did not say it listens within 20 s")
	}
	return s
}

// ReplaceHostKey gives the server a new host key (restarting it on the
// same port), as a reinstalled or impersonated host would have.
func (s *Server) ReplaceHostKey(t testing.TB) {
	t.Helper()
	s.cmd.Process.Kill()
	s.cmd.Wait()
	os.Remove(filepath.Join(s.Dir, "host_key"))
	os.Remove(filepath.Join(s.Dir, "host_key.pub"))
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(s.Dir, "host_key")).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	s.cmd = exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(s.Dir, "sshd_config"))
	stderr, _ := s.cmd.StderrPipe()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "Server listening on") {
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

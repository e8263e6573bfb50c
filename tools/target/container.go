package target

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// Container runs scripts in a running container through the engine's
// CLI: ENGINE exec -i CONTAINER sh -lc SCRIPT.
type Container struct {
	name      string
	container string
	engine    string // "docker", "podman" or "auto"

	mu     sync.Mutex
	chosen string // the engine found running the container
}

// NewContainer is the container target name: a container (name or ID)
// of engine ("docker", "podman", "auto" or "" = auto).
func NewContainer(name, container, engine string) *Container {
	if engine == "" {
		engine = "auto"
	}
	return &Container{name: name, container: container, engine: engine}
}

func (c *Container) Name() string { return c.name }
func (c *Container) Kind() string { return "container" }
func (c *Container) Close() error { return nil }

// Exec runs the script in the container; an engine that cannot reach it
// (not running, no such container, no engine) is Unreachable.
func (c *Container) Exec(ctx context.Context, script string, args []string, stdin io.Reader, out io.Writer) (Exit, error) {
	engine, err := c.probe(ctx)
	if err != nil {
		return Exit{}, err
	}
	argv := []string{engine, "exec", "-i", c.container, "sh", "-lc", wrapScript(script), "chatls"}
	exit, err := runTransport(ctx, c.name, append(argv, args...), stdin, out)
	if err != nil {
		c.mu.Lock()
		c.chosen = "" // asked again next time: it may have stopped
		c.mu.Unlock()
		if ctx.Err() == nil {
			// A container that stopped (before the call or during it)
			// is said as such; the call is still not repeated.
			if _, perr := c.probe(ctx); perr != nil {
				u := perr.(*Unreachable)
				u.Started = true
				u.Said += " (it may have stopped during the call)"
				return exit, u
			}
		}
	}
	return exit, err
}

// probe finds the engine running the container, once; a container that
// stopped since is found again on the next call.
func (c *Container) probe(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chosen != "" {
		return c.chosen, nil
	}
	candidates := []string{c.engine}
	if c.engine == "auto" {
		candidates = []string{"docker", "podman"}
	}
	var said []string
	for _, e := range candidates {
		if _, err := exec.LookPath(e); err != nil {
			said = append(said, e+" is not installed")
			continue
		}
		out, err := exec.CommandContext(ctx, e, "inspect", "--format", "{{.State.Running}}", c.container).CombinedOutput()
		state := strings.TrimSpace(string(out))
		switch {
		case err == nil && state == "true":
			c.chosen = e
			return e, nil
		case err == nil:
			said = append(said, fmt.Sprintf("%s: container %s is not running", e, c.container))
		default:
			said = append(said, fmt.Sprintf("%s: %s", e, firstLine(state, err)))
		}
	}
	return "", &Unreachable{Target: c.name, Said: strings.Join(said, "; ")}
}

func firstLine(s string, err error) string {
	if s == "" {
		return err.Error()
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}

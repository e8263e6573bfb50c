// Package target is where the tools run (SPEC §8): this machine, a host
// over SSH, a running container, each optionally through a tmux session
// the user can watch. A Machine runs POSIX sh scripts; everything else —
// running a command under its own session so it can be killed with its
// children, reading, writing and listing files — is built on that one
// primitive here, the same for every machine. Texts, limits and policy
// stay in the tools and approval packages.
package target

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Machine runs scripts on one target.
type Machine interface {
	// Name is the target's name in settings ("" for this machine).
	Name() string
	// Kind is "local", "ssh" or "container".
	Kind() string
	// Exec runs script with sh on the machine, args as $1…, stdin as its
	// standard input (nil: empty), stdout and stderr merged into out.
	// The error is an *Unreachable when the machine could not be reached
	// or the link dropped before the script said how it ended: the script
	// may have run, in part or whole, and must not be repeated.
	Exec(ctx context.Context, script string, args []string, stdin io.Reader, out io.Writer) (Exit, error)
	// Close ends what the machine holds open (an SSH master connection).
	Close() error
}

// Exit is how a script ended.
type Exit struct {
	Code int
	// Notes are the lines the script wrote to its note channel (fd 3):
	// facts about the run that are not its output.
	Notes []string
}

// Noted reports whether the script left note n.
func (e Exit) Noted(n string) bool {
	for _, x := range e.Notes {
		if x == n {
			return true
		}
	}
	return false
}

// Unreachable is a failure of the link to the machine, not of the script.
type Unreachable struct {
	Target string
	// Said is what the transport (ssh, the container engine) said.
	Said string
	// Started is true when the script may have begun.
	Started bool
}

func (u *Unreachable) Error() string {
	said := u.Said
	if said == "" {
		said = "no answer"
	}
	if u.Started {
		return fmt.Sprintf("the connection to target %s dropped during the call (%s); it was not run again", u.Target, said)
	}
	return fmt.Sprintf("target %s is unreachable: %s", u.Target, said)
}

// IsUnreachable reports whether err is a link failure.
func IsUnreachable(err error) bool {
	var u *Unreachable
	return errors.As(err, &u)
}

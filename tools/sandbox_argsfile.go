package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// maxInlineArgs bounds the bubblewrap options put on its command line. The
// kernel refuses an exec whose arguments and environment pass ARG_MAX
// (a quarter of the stack limit, 2 MiB by default) with "argument list too
// long": a writable set with thousands of .git directories (a /tmp full of
// test repositories) or hard-linked files (a pnpm store, a local git clone)
// needs a mount option for each. Past this bound they go to bubblewrap
// through a file (its --args), far below the limit.
var maxInlineArgs = 256 << 10

// argBytes is what args take of the exec's argument space.
func argBytes(args []string) int {
	n := 0
	for _, a := range args {
		n += len(a) + 1
	}
	return n
}

// bwrapCommand is bubblewrap with opts (its options, up to the command)
// running argv: on the command line when they are short, else read from a
// private file that a shell opens as fd 4 and removes before bubblewrap
// starts (bubblewrap reads and closes it: the command inside never sees
// it). Fd 3 is left as it came: bubblewrap's status pipe (SandboxSetup).
func bwrapCommand(bwrap string, opts, argv []string) (*exec.Cmd, error) {
	if argBytes(opts)+argBytes(argv) <= maxInlineArgs {
		return exec.Command(bwrap, append(opts, argv...)...), nil
	}
	f, err := os.CreateTemp(filepath.Dir(emptyFile()), ".bwrap-args-*")
	if err != nil {
		f, err = os.CreateTemp("", ".chatls-bwrap-args-*")
		if err != nil {
			return nil, err
		}
	}
	name := f.Name()
	// --args takes NUL-separated options; "--" and the command stay on the
	// command line, where bubblewrap expects them.
	opts = trimSeparator(opts)
	_, err = f.WriteString(strings.Join(opts, "\x00") + "\x00")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return nil, err
	}
	const open = `f=$1; shift; exec 4<"$f" || exit 127; rm -f -- "$f"; exec "$@"`
	cmd := exec.Command("/bin/sh", append([]string{"-c", open, "sh", name, bwrap, "--args", "4", "--"}, argv...)...)
	// A command never started leaves no file behind.
	runtime.AddCleanup(cmd, func(name string) { os.Remove(name) }, name)
	return cmd, nil
}

// trimSeparator is opts without the "--" that ends them.
func trimSeparator(opts []string) []string {
	if n := len(opts); n > 0 && opts[n-1] == "--" {
		return opts[:n-1]
	}
	return opts
}

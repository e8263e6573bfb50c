package main

import (
	"fmt"
	"io"
	"os"
)

// configMissing reports (on stderr) a --config file that does not exist:
// a typo there would otherwise run with no user config at all.
func configMissing(path string, stderr io.Writer) bool {
	if path == "" {
		return false
	}
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "chatls: --config %s: %v (leave --config out to use $XDG_CONFIG_HOME/chatls/config.toml)\n", path, err)
		return true
	}
	return false
}

// interactive says whether r is a terminal: someone typed plain `chatls`.
func interactive(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// ttyNote is the one line plain `chatls` prints on a terminal: it is a
// language server waiting for an editor, not a hung program.
const ttyNote = "chatls: a language server waiting for an editor on stdin (Ctrl-C quits); try `chatls demo` or `chatls help`"

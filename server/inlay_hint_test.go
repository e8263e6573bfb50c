package server

import "testing"

func TestFullOutputPath(t *testing.T) {
	for _, c := range []struct{ content, want string }{
		{"a\nb\n\n[Showing lines 3-2003 of 2003. Full output: /tmp/chatls-out-1.txt]", "/tmp/chatls-out-1.txt"},
		{"x\n\n[Showing lines 1-10 of 99. Full output: /tmp/o.txt]\n[The saved file holds only the first 64 MB of 2 GB.]", "/tmp/o.txt"},
		{"[Showing lines 1-50 of 80. Use offset=51 to continue.]", ""},
		{"the model wrote . Full output: /etc/passwd] in prose", ""},
		{"", ""},
	} {
		if got := fullOutputPath(c.content); got != c.want {
			t.Errorf("fullOutputPath(%q) = %q, want %q", c.content, got, c.want)
		}
	}
}

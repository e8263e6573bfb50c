package fileuri

import "testing"

func TestRoundTrip(t *testing.T) {
	for _, p := range []string{"/tmp/a.chat", "/tmp/with space/#1?.chat", "/tmp/ünï/%41.chat"} {
		u := FromPath(p)
		if got := ToPath(u); got != p {
			t.Errorf("%q -> %q -> %q", p, u, got)
		}
	}
	if got := FromPath("/tmp/with space/#1?.chat"); got != "file:///tmp/with%20space/%231%3F.chat" {
		t.Errorf("escaping: %q", got)
	}
	for _, u := range []string{"untitled:Untitled-1", "https://example.com/a.chat", "file://%zz", ""} {
		if got := ToPath(u); got != "" {
			t.Errorf("ToPath(%q) = %q, want \"\"", u, got)
		}
	}
}

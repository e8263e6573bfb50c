package didyoumean

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"read", "read", 0}, {"reed", "read", 1}, {"raed", "read", 1}, {"rd", "read", 2},
		{"", "abc", 3}, {"ülf", "ulf", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"bash", "edit", "read", "write"}
	for name, want := range map[string]string{"reed": "read", "Bahs": "bash", "calculator": "", "read": "", "wirte": "write"} {
		if got := Closest(name, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}

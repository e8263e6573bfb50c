package keyenv

import (
	"slices"
	"testing"
)

func TestStrip(t *testing.T) {
	SetConfigured([]string{"GROQ_API_KEY"})
	defer SetConfigured(nil)
	env := []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-ant-1", "GROQ_API_KEY=g", "GROQ_API_KEY_NOT=kept", "OPENAI_API_KEY=", "HOME=/h"}
	got := Strip(env)
	want := []string{"PATH=/bin", "GROQ_API_KEY_NOT=kept", "HOME=/h"}
	if !slices.Equal(got, want) {
		t.Errorf("Strip = %q, want %q", got, want)
	}
	SetConfigured(nil)
	if got := Strip(env); !slices.Contains(got, "GROQ_API_KEY=g") {
		t.Errorf("a variable no longer configured is passed on: %q", got)
	}
}

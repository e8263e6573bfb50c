package tools

import (
	"sort"

	"github.com/chatls/chatls/internal/didyoumean"
)

// Suggest returns the known tool name closest to name for a "did you mean"
// hint, or "" when nothing is close enough to be a plausible typo.
func (r *Registry) Suggest(name string) string {
	byName := r.names()
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	return didyoumean.Closest(name, names)
}

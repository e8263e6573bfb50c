package tools

import (
	"sort"
	"strings"
)

// Suggest returns the known tool name closest to name for a "did you mean"
// hint, or "" when nothing is close enough to be a plausible typo.
func (r *Registry) Suggest(name string) string {
	r.mu.Lock()
	names := make([]string, 0, len(r.byName))
	for n := range r.byName {
		names = append(names, n)
	}
	r.mu.Unlock()
	sort.Strings(names)
	return closest(name, names)
}

// closest picks the candidate with the smallest edit distance (case folded,
// transpositions count once), accepting at most a third of the name's length
// (at least 1, at most 3). Ties go to the alphabetically first candidate.
func closest(name string, candidates []string) string {
	folded := strings.ToLower(name)
	budget := min(max(len([]rune(name))/3, 1), 3)
	best, bestDist := "", budget+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(folded, strings.ToLower(c))
		if d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal-string-alignment distance over runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 256 || len(rb) > 256 {
		return 1 << 30 // not a typo of a tool name; spare the quadratic work
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

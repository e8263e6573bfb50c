// Package didyoumean finds the known name closest to a misspelt one, for
// "did you mean" hints (unknown tools, unknown settings keys).
package didyoumean

import "strings"

// Closest picks the candidate with the smallest distance to name (case
// folded), accepting at most a third of the name's length (at least 1, at
// most 3), or "" when nothing is close enough to be a plausible typo.
// Ties go to the first candidate; name itself is never suggested.
func Closest(name string, candidates []string) string {
	folded := strings.ToLower(name)
	budget := min(max(len([]rune(name))/3, 1), 3)
	best, bestDist := "", budget+1
	for _, c := range candidates {
		if c == name {
			continue
		}
		if d := Distance(folded, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the optimal-string-alignment distance of a and b over runes:
// insertions, deletions, substitutions and adjacent transpositions count
// one each. Strings longer than 256 runes are no typos of a name: their
// distance is huge, which spares the quadratic work.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 256 || len(rb) > 256 {
		return 1 << 30
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

package chatdoc

import "strings"

// LineReading is what a line of a model's streamed text reads as, judged
// from its start (SPEC §1: streamed text never creates structure).
type LineReading int

const (
	// LineOpen: the line so far could still become either; more decides.
	LineOpen LineReading = iota
	// LineText: the line is text whatever follows.
	LineText
	// LineStructure: the line would read as structure whatever follows, so
	// the writer puts one space before it.
	LineStructure
)

// Lines of an answer that a writer escapes when they begin with one of these:
// the tool-use header, the result headers a @You: message reads (Flemma
// 0.12's job results among them), the abort marker. A line that begins with one but would not parse as the
// whole header is escaped too (the space changes nothing a reader sees),
// so a line's reading never depends on where the stream split it.
var streamedHeaders = []string{toolUsePrefix, toolResultPrefix, "**Job Result:**", "<!-- flemma:aborted:"}

// ReadStreamedLine judges the start p of a line of a model's text outside
// a fence (without its line ending; complete says the line ended). A role
// marker as the parser reads it (`@Word:` alone, or `@You: text`), a
// header of streamedHeaders and a thinking opener (`<thinking` followed by
// the line's end, a blank, `>` or `/`) read as structure; everything else
// as text. The answer for p is the answer for every longer line starting
// with p, so a writer can decide as soon as it knows.
func ReadStreamedLine(p string, complete bool) LineReading {
	open := LineOpen
	if complete {
		open = LineText
	}
	if p == "" {
		return open
	}
	switch p[0] {
	case '@':
		return readRoleMarker(p, complete)
	case '*', '<':
		for _, h := range streamedHeaders {
			if strings.HasPrefix(p, h) {
				return LineStructure
			}
		}
		const thinking = "<thinking"
		if strings.HasPrefix(p, thinking) {
			if len(p) == len(thinking) {
				if complete {
					return LineStructure
				}
				return LineOpen
			}
			if c := p[len(thinking)]; c == ' ' || c == '\t' || c == '>' || c == '/' {
				return LineStructure
			}
			return LineText
		}
		for _, h := range append(streamedHeaders, thinking) {
			if strings.HasPrefix(h, p) {
				return open
			}
		}
	}
	return LineText
}

// readRoleMarker is roleMarker decided on a line's start.
func readRoleMarker(p string, complete bool) LineReading {
	i := 1
	for i < len(p) && isWordByte(p[i]) {
		i++
	}
	if i == len(p) {
		if complete {
			return LineText
		}
		return LineOpen
	}
	if i == 1 || p[i] != ':' {
		return LineText
	}
	role, rest := p[1:i], p[i+1:]
	if rest != "" && isKnownRole(role) && (rest[0] == ' ' || rest[0] == '\t') {
		return LineStructure // @You: text starts a message too (pre-0.6 form)
	}
	for j := 0; j < len(rest); j++ {
		if !isSpace(rest[j]) {
			return LineText
		}
	}
	if complete {
		return LineStructure
	}
	return LineOpen
}

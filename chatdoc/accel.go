package chatdoc

// Accel holds faster ways of doing what chatdoc otherwise does with the
// standard library alone, supplied by the program: chatdoc only parses and
// writes the format, while how it may use the machine (a second core, a
// JSON reader three times as fast as encoding/json, panics on memory
// faults raised in the caller) is the program's choice. Each must give
// exactly the results of the plain way; nil members keep it.
type Accel struct {
	// Parallel runs the functions at once and returns when all have, as if
	// the caller ran them (a panic raised again in it). nil: one after the
	// other.
	Parallel func(fs ...func())
	// IsObjectWithin says whether s decodes with encoding/json into a
	// map[string]any nesting at most maxDepth deep; false when unsure (the
	// full decode then decides).
	IsObjectWithin func(s string, maxDepth int) bool
	// DecodeObject decodes s as json.Unmarshal into a map[string]any; false
	// when it does not (encoding/json then decodes).
	DecodeObject func(s string) (map[string]any, bool)
}

var accel Accel

// Accelerate installs a for every parse that follows. Call it once, at
// start-up, before any parse: it is not synchronised with them.
func Accelerate(a Accel) { accel = a }

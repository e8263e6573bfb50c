package chatdoc

// Accel holds a faster way of doing what chatdoc otherwise does with the
// standard library alone, supplied by the program: chatdoc only parses and
// writes the format, while how it may use the machine (a second core,
// panics on memory faults raised in the caller) is the program's choice.
// It must give exactly the results of the plain way; nil keeps it.
type Accel struct {
	// Parallel runs the functions at once and returns when all have, as if
	// the caller ran them (a panic raised again in it). nil: one after the
	// other.
	Parallel func(fs ...func())
}

var accel Accel

// Accelerate installs a for every parse that follows. Call it once, at
// start-up, before any parse: it is not synchronised with them.
func Accelerate(a Accel) { accel = a }

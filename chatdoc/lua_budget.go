package chatdoc

import (
	"errors"
	"fmt"
	"time"
)

// Limits of the frontmatter VM. A frontmatter sets a few options in well under
// a millisecond; anything near these limits is a mistake or an attack. They
// are counted for the script alone (not sampled from the process), so the
// same frontmatter always gives the same result, whatever else runs.
// Variables only so that fuzz tests can make them small (instrumented code
// runs slowly).
var (
	// luaMaxSteps bounds the work: VM instructions plus the steps of the
	// pattern matcher and the copying done by library functions.
	luaMaxSteps = 5_000_000
	// luaMaxBytes bounds what the script creates: bytes of strings made by
	// concatenation and the string/table library, plus an estimate per
	// table, table entry and function (luaCost*). Counted as created, not
	// as live: garbage counts too, which only makes the limit stricter.
	luaMaxBytes = 32 << 20
)

const (
	// luaMaxString is the longest string one operation may create.
	luaMaxString = 16 << 20
	// luaMaxSource is the largest Lua frontmatter evaluated at all.
	luaMaxSource = 256 << 10
	// luaMaxNesting bounds the syntax tree's depth, which the compiler
	// walks recursively (Lua 5.1 itself allows 200 C levels).
	luaMaxNesting = 200
	// luaWallLimit is a backstop only: with the counted limits above a
	// frontmatter ends far sooner, so this never decides on its own.
	luaWallLimit = 10 * time.Second

	luaCostTable    = 64 // a table
	luaCostEntry    = 32 // a new key in a table
	luaCostFunction = 96 // a closure
)

var (
	errLuaMemory  = errors.New("the frontmatter used too much memory")
	errLuaSource  = fmt.Errorf("the frontmatter is too long (over %d KB)", luaMaxSource>>10)
	errLuaNesting = fmt.Errorf("the frontmatter is nested too deeply (over %d levels)", luaMaxNesting)
	errLuaWall    = fmt.Errorf("the frontmatter ran too long (over %v)", luaWallLimit)
	// errLuaStringSize refuses one oversized string; the script may catch it.
	errLuaStringSize = fmt.Errorf("string too large (over %d MB)", luaMaxString>>20)
)

// luaBudget counts one evaluation's work and memory. Once a limit is hit it
// stays hit: every further VM instruction fails, so pcall can't go on.
type luaBudget struct {
	steps, bytes int64
	failed       error
	start        time.Time
}

func newLuaBudget() *luaBudget {
	return &luaBudget{steps: int64(luaMaxSteps), bytes: int64(luaMaxBytes), start: time.Now()}
}

func errLuaTimeout() error {
	return fmt.Errorf("the frontmatter ran too long (over %d steps)", luaMaxSteps)
}

// step charges n units of work; false (and failed set) when over budget.
func (b *luaBudget) step(n int) bool {
	b.steps -= int64(n)
	if b.steps < 0 && b.failed == nil {
		b.failed = errLuaTimeout()
	}
	return b.failed == nil
}

// alloc charges n bytes of memory; false (and failed set) when over budget.
func (b *luaBudget) alloc(n int) bool {
	b.bytes -= int64(n)
	if b.bytes < 0 && b.failed == nil {
		b.failed = errLuaMemory
	}
	return b.failed == nil
}

// exceed records a limit hit by one operation (the first one counts) and
// returns the failure.
func (b *luaBudget) exceed(err error) error {
	if b.failed == nil {
		b.failed = err
	}
	return b.failed
}

// luaContext is the context gopher-lua checks before every instruction:
// its Done method is where instructions are counted.
type luaContext struct{ b *luaBudget }

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (c luaContext) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c luaContext) Value(any) any               { return nil }
func (c luaContext) Err() error                  { return c.b.failed }

func (c luaContext) Done() <-chan struct{} {
	b := c.b
	if b.step(1) && b.steps&0xffff == 0 && time.Since(b.start) > luaWallLimit {
		b.failed = errLuaWall
	}
	if b.failed != nil {
		return closedDone
	}
	return nil // select's default: run the instruction
}

package luavm

import (
	"fmt"
	"time"
)

// Limits of the VM. A frontmatter sets a few options, a template computes a
// value, in well under a millisecond; anything near these limits is a
// mistake or an attack. They are counted for the script alone (not sampled
// from the process), so the same code always gives the same result,
// whatever else runs. Variables only so that fuzz tests can make them small
// (instrumented code runs slowly): see SetLimits.
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

// SetLimits changes the step and byte budgets (tests and fuzzing) and
// returns a function that restores them.
func SetLimits(steps, bytes int) (restore func()) {
	oldSteps, oldBytes := luaMaxSteps, luaMaxBytes
	luaMaxSteps, luaMaxBytes = steps, bytes
	return func() { luaMaxSteps, luaMaxBytes = oldSteps, oldBytes }
}

const (
	// luaMaxString is the longest string one operation may create.
	luaMaxString = 16 << 20
	// MaxSource is the largest Lua code evaluated at all.
	MaxSource = 256 << 10
	// luaMaxNesting bounds the syntax tree's depth, which the compiler
	// walks recursively (Lua 5.1 itself allows 200 C levels).
	luaMaxNesting = 200
	// luaWallLimit is a backstop only: with the counted limits above a
	// frontmatter ends far sooner, so this never decides on its own.
	luaWallLimit = 10 * time.Second

	// What the budget charges for objects a script makes (hosts charge the
	// same through VM.Charge for what they make on its behalf).
	CostTable       = 64 // a table
	CostEntry       = 32 // a new key in a table
	luaCostFunction = 96 // a closure
)

// errLuaStringSize refuses one oversized string; the script may catch it.
var errLuaStringSize = fmt.Errorf("string too large (over %d MB)", luaMaxString>>20)

// luaBudget counts one VM's work and memory. Once a limit is hit it stays
// hit: every further VM instruction fails, so pcall can't go on. what names
// the code in messages ("the frontmatter").
type luaBudget struct {
	steps, bytes int64
	failed       error
	start        time.Time
	what         string
}

func newLuaBudget(what string) *luaBudget {
	return &luaBudget{steps: int64(luaMaxSteps), bytes: int64(luaMaxBytes), start: time.Now(), what: what}
}

// step charges n units of work; false (and failed set) when over budget.
func (b *luaBudget) step(n int) bool {
	b.steps -= int64(n)
	if b.steps < 0 && b.failed == nil {
		b.failed = fmt.Errorf("%s ran too long (over %d steps)", b.what, luaMaxSteps)
	}
	return b.failed == nil
}

// alloc charges n bytes of memory; false (and failed set) when over budget.
func (b *luaBudget) alloc(n int) bool {
	b.bytes -= int64(n)
	if b.bytes < 0 && b.failed == nil {
		b.failed = fmt.Errorf("%s used too much memory", b.what)
	}
	return b.failed == nil
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
		b.failed = fmt.Errorf("%s ran too long (over %v)", b.what, luaWallLimit)
	}
	if b.failed != nil {
		return closedDone
	}
	return nil // select's default: run the instruction
}

// Package workers runs a few functions at once for a caller that waits for
// them all, as if the caller had run them itself. Each function runs with
// the caller's panic-on-fault setting (debug.SetPanicOnFault, which
// `chatls check` turns on to survive a memory-mapped file that shrinks
// under it), and a panic in any of them is raised again in the caller, after
// all have ended, where the caller can recover it. A panic on a goroutine
// of its own would end the process: nothing else can recover it.
package workers

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// A Panic is a function's panic, raised again by Run in its caller.
type Panic struct {
	Value any    // what the function panicked with
	Stack []byte // the stack of the goroutine that panicked, at the panic
}

func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n\ngoroutine that panicked:\n%s", p.Value, p.Stack)
}

// Unwrap is the panic's value when it is an error (a runtime.Error for a
// fault, whose Addr says where), for errors.As.
func (p *Panic) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// Run calls every f at once, the first on the calling goroutine, and
// returns when all have returned. If any panicked, Run then panics with the
// *Panic of the first of them (in the order given).
func Run(fs ...func()) {
	if len(fs) == 0 {
		return
	}
	fault := debug.SetPanicOnFault(false)
	debug.SetPanicOnFault(fault)
	panics := make([]*Panic, len(fs))
	var wg sync.WaitGroup
	for i, f := range fs[1:] {
		wg.Go(func() {
			debug.SetPanicOnFault(fault)
			defer catch(&panics[i+1])
			f()
		})
	}
	func() {
		defer catch(&panics[0])
		fs[0]()
	}()
	wg.Wait()
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
}

// catch keeps a panic of the function it is deferred in, with the stack.
func catch(into **Panic) {
	if v := recover(); v != nil {
		if p, ok := v.(*Panic); ok { // a nested Run's: keep its own stack
			*into = p
			return
		}
		*into = &Panic{Value: v, Stack: debug.Stack()}
	}
}

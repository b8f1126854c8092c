// Package crash starts the program's goroutines so that a panic on any of
// them, while a front end holds the terminal, stops that front end (which
// restores the terminal) and is reported, instead of ending the process
// with the terminal left raw on the alternate screen. With no front end
// holding the terminal a panic goes on as Go's does.
package crash

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Panic is a panic caught on a goroutine started by Go.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("panic on a background job: %v", p.Value) }

var state struct {
	sync.Mutex
	stop  func()
	first *Panic
}

// Catch makes the panics of Go's goroutines call stop (once, at the
// first) until the returned function is called, which says what was
// caught, if anything.
func Catch(stop func()) (caught func() *Panic) {
	state.Lock()
	state.stop, state.first = stop, nil
	state.Unlock()
	return func() *Panic {
		state.Lock()
		defer state.Unlock()
		state.stop = nil
		return state.first
	}
}

// Go runs f on a new goroutine.
func Go(f func()) { go run(f) }

// GoIn runs f on a new goroutine that wg waits for.
func GoIn(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		run(f)
	}()
}

func run(f func()) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		state.Lock()
		stop, first := state.stop, state.first == nil
		if stop != nil && first {
			state.first = &Panic{Value: r, Stack: debug.Stack()}
		}
		state.Unlock()
		if stop == nil {
			panic(r)
		}
		if first {
			stop()
		}
	}()
	f()
}

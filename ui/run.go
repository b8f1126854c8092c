package ui

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/internal/termtext"
)

// Run shows the inspector until the user quits. A panic stops it with the
// terminal restored and is reported with its stack on standard error:
// Bubble Tea catches one in Update, View or a command, and background
// catches one on the inspector's own goroutines.
func Run(opt Options) error { return run(opt) }

// run is Run on the terminal Bubble Tea's options give; tests give another.
func run(opt Options, terminal ...tea.ProgramOption) error {
	m := New(opt)
	p := tea.NewProgram(m, terminal...)
	crashed := catchPanics(p.Kill)
	_, err := p.Run()
	if c := crashed(); c != nil {
		fmt.Fprintf(os.Stderr, "spillway: %s\n%s", termtext.Escape(c.Error()), c.stack)
		return fmt.Errorf("inspector: %w", c)
	}
	if err != nil {
		return fmt.Errorf("inspector: %w", err)
	}
	if m.fleet != nil {
		if m.fleet.err != nil && !m.fleet.scanned {
			return m.fleet.err
		}
		return nil
	}
	if s := m.sess; s != nil && s.err != nil && s.session == nil {
		return s.err
	}
	return nil
}

// panicked is a panic caught on a background goroutine.
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string { return fmt.Sprintf("panic on a background job: %v", p.value) }

// ErrProgramPanic lets errors.Is tell a caught panic from other errors.
func (p *panicked) Is(target error) bool { return target == tea.ErrProgramPanic }

// crash is where background hands a panic while a program runs: stop
// stops the program, which restores the terminal, and first is the first
// panic caught. With no program running, a panic goes on as Go's.
var crash struct {
	sync.Mutex
	stop  func()
	first *panicked
}

// catchPanics makes background's panics stop the program with stop until
// the returned function is called, which says what was caught, if any.
func catchPanics(stop func()) (caught func() *panicked) {
	crash.Lock()
	crash.stop, crash.first = stop, nil
	crash.Unlock()
	return func() *panicked {
		crash.Lock()
		defer crash.Unlock()
		crash.stop = nil
		return crash.first
	}
}

// background runs f on a new goroutine. A panic in f stops the program
// running (see catchPanics), which restores the terminal, rather than
// ending the process with the terminal still in raw mode and on the
// alternate screen.
func background(f func()) {
	go func() {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			crash.Lock()
			stop := crash.stop
			if stop != nil && crash.first == nil {
				crash.first = &panicked{value: r, stack: debug.Stack()}
			}
			crash.Unlock()
			if stop == nil {
				panic(r)
			}
			stop()
		}()
		f()
	}()
}

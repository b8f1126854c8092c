package ui

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/internal/crash"
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
	crashed := crash.Catch(p.Kill)
	// A terminal closed under the program hangs it up, which Bubble Tea
	// leaves to end it at once: it ends as on q instead, so that what it
	// keeps (the list's figures, in the index's cache) is written.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	ran := make(chan struct{})
	defer close(ran)
	crash.Go(func() {
		select {
		case <-hup:
			p.Quit()
		case <-ran:
		}
	})
	_, err := p.Run()
	if c := crashed(); c != nil {
		fmt.Fprintf(os.Stderr, "spillway: %s\n%s", termtext.Escape(c.Error()), c.Stack)
		return fmt.Errorf("inspector: %w: %w", tea.ErrProgramPanic, c)
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
	if s := m.sess; s != nil && s.problem() != nil && s.session == nil {
		return s.problem()
	}
	return nil
}

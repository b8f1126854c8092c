package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/internal/app"
)

// progress is the line a batch command keeps on a terminal's stderr while
// it reads: how many sessions of how many are done. It is drawn over
// itself, taken off before any other line is written to stderr and put
// back after, and cleared when the command ends. Where stderr is not a
// terminal there is no line at all.
type progress struct {
	w     io.Writer
	mu    sync.Mutex
	start time.Time
	drawn time.Time // when the line was last drawn
	line  string    // the line, once drawn
	shown bool      // the line is on the screen
}

// progressDelay is how long a command works before the line is shown, and
// how often it is drawn again; tests set it to 0.
var progressDelay = 250 * time.Millisecond

// withProgress sets opt to report its progress on stderr when stderr is a
// terminal, and returns the writers that the output and the problems must
// go to instead of stdout and stderr (so that no line of either lands
// inside the progress line on a terminal) and the function that clears
// the line at the end.
func withProgress(stdout, stderr io.Writer, opt *app.Options) (io.Writer, io.Writer, func()) {
	if !isTerminal(stderr) {
		return stdout, stderr, func() {}
	}
	p := &progress{w: stderr, start: time.Now()}
	opt.Progress = p.update
	if isTerminal(stdout) {
		stdout = above{p, stdout}
	}
	return stdout, above{p, stderr}, p.clear
}

// above writes to w with the progress line taken off first, and put back
// once a whole line is written.
type above struct {
	p *progress
	w io.Writer
}

func (a above) Write(b []byte) (int, error) { return a.p.above(a.w, b) }

func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if now.Sub(p.start) < progressDelay || now.Sub(p.drawn) < progressDelay && done < total {
		return
	}
	p.line = fmt.Sprintf("spillway: %d of %d sessions read…", done, total)
	p.drawn, p.shown = now, true
	fmt.Fprint(p.w, "\r\x1b[K"+p.line)
}

// above writes b to w with the progress line taken off, and puts the
// line back if b ends a line; else it waits for the next update.
func (p *progress) above(w io.Writer, b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
	n, err := w.Write(b)
	if p.line != "" && len(b) > 0 && b[len(b)-1] == '\n' {
		fmt.Fprint(p.w, p.line)
		p.shown = true
	}
	return n, err
}

func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	p.line, p.shown = "", false
}

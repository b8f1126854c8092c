package report

import (
	"fmt"
	"io"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// Options configure Generate and Sweep: those of the pipeline every front
// end shares.
type Options = app.Options

// Problems counts what went wrong with inputs that did not stop the report.
type Problems = app.Problems

// Generate reports every session in inputs (files, directories searched
// recursively for *.jsonl, newest first, or "-" for standard input) to w,
// in order, each with its sub-agents. Problems with single inputs go to
// errw and are counted; the error return is for failures writing the report.
func Generate(inputs []string, stdin io.Reader, opt Options, w Writer, errw io.Writer) (Problems, error) {
	resolved, err := app.Resolve(inputs, app.SystemEnv())
	if err != nil {
		return Problems{}, err
	}
	if err := w.Begin(); err != nil {
		return Problems{}, err
	}
	// A policy that never changes a result never needs the texts, nor
	// their tokens: reading only their sizes is faster and holds less.
	if opt.Policy.Inert() {
		opt.Read.SizesOnly = true
		opt.Counter = nil
	} else {
		opt.Read.SizesOnly = false
	}
	render := func(s *app.Session) ([]byte, error) {
		rs, err := session(s, opt)
		if err != nil {
			return nil, err
		}
		return w.Render(rs)
	}
	p, err := app.Each(resolved, stdin, opt, render, w.Write, complainTo(errw))
	if err != nil {
		return p, err
	}
	return p, w.End()
}

// complainTo writes each problem with an input to errw, one line each.
func complainTo(errw io.Writer) func(error) {
	return func(err error) { fmt.Fprintf(errw, "spillway: %s\n", termtext.Escape(err.Error())) }
}

// session replays one session and its sub-agents under opt.Policy and
// builds its report, whose totals include the sub-agents'.
func session(s *app.Session, opt Options) (*Session, error) {
	rp, err := opt.Replay(s.Prepared, opt.Policy)
	if err != nil {
		return nil, err
	}
	out := Build(rp)
	for _, sub := range s.Subagents {
		rp, err := opt.Replay(sub, opt.Policy)
		if err != nil {
			return nil, err
		}
		rs := Build(rp)
		out.Subagents = append(out.Subagents, rs)
		out.include(rs)
	}
	return out, nil
}

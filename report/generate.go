package report

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/spillway-dev/spillway/guard/replay"
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
	if opt.Policy.Inert() && !opt.Texts {
		opt.Read.SizesOnly = true
		opt.Counter = nil
	} else {
		opt.Read.SizesOnly = false
	}
	opt.ResultsGrowWithLogs = true // a session rendered is about its log
	complain := complainTo(errw)
	if ww, ok := w.(warner); ok {
		var mu sync.Mutex // Render runs on several goroutines
		ww.warnTo(func(warning string) {
			mu.Lock()
			defer mu.Unlock()
			complain(errors.New(warning))
		})
	}
	render := func(s *app.Session) ([]byte, error) {
		rs, err := session(s, opt)
		if err != nil {
			return nil, err
		}
		return w.Render(rs)
	}
	// No share of this report is kept (a session rendered weighs about its
	// log), but the index relates the logs without reading them first.
	written := 0
	write := func(b []byte) error {
		written++
		return w.Write(b)
	}
	p, err := eachKept(resolved, stdin, opt, &keeping[[]byte]{}, render, write, complain)
	if err != nil {
		Abort(w)
		return p, err
	}
	if _, folder := w.(interface{ Abort() }); folder && written == 0 && p.Status() != 0 {
		// Not one input read: the tables of an earlier run stay, where a
		// mistyped path emptied them.
		Abort(w)
		complain(errors.New("no session was read: nothing written"))
		return p, nil
	}
	return p, w.End()
}

// warner is a Writer with warnings of its own about what it writes
// (figures past what its columns hold): Generate gives it where problems
// go. warn may be called from Render, on several goroutines at once.
type warner interface{ warnTo(warn func(string)) }

// complainTo writes each problem with an input to errw, one line each.
func complainTo(errw io.Writer) func(error) {
	return func(err error) { fmt.Fprintf(errw, "spillway: %s\n", termtext.Escape(err.Error())) }
}

// Of reports one session and its sub-agents as Generate does, for a
// caller that reads the figures rather than writing a report.
func Of(s *app.Session, opt Options) (*Session, error) { return session(s, opt) }

// session replays one session and its sub-agents under opt.Policy and
// builds its report, whose totals include the sub-agents'. Spill files
// are planned, and written only with opt.WriteSpills.
func session(s *app.Session, opt Options) (*Session, error) {
	led, err := readLedger(opt.Ledger, s.Prepared.Session.ID)
	if err != nil {
		return nil, err
	}
	one := func(p *replay.Prepared) (*Session, error) {
		rp, planned, err := opt.ReplayPlanned(p, opt.Policy)
		if err != nil {
			return nil, err
		}
		out := Build(rp)
		annotate(out, rp, opt, led)
		if planned == nil || planned.Len() == 0 {
			return out, nil
		}
		out.Spills = SpillFiles{Dir: planned.Dir.Root, Planned: planned.Len()}
		if opt.WriteSpills {
			out.Spills.Written, err = planned.WriteAll()
			if err != nil {
				out.Spills.Error = err.Error()
			}
		}
		return out, nil
	}
	out, err := one(s.Prepared)
	if err != nil {
		return nil, err
	}
	for _, sub := range s.Subagents {
		rs, err := one(sub)
		if err != nil {
			return nil, err
		}
		out.Subagents = append(out.Subagents, rs)
		out.include(rs)
	}
	out.Totals.harnessCost(s.Prepared.Session.HarnessCost)
	return out, nil
}

package report

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// Options configure Generate.
type Options struct {
	Prices *pricing.Table
	Read   transcript.Options
	Policy policy.Policy
	// Counter counts tokens; it may be nil when the policy is inert. Each
	// session gets its own memo of counts over it, so memory stays that of
	// one session.
	Counter *tokens.Counter
	// SpillRoot is where spill files go; empty plans them without writing.
	SpillRoot string
	Workers   int
	// StdinName labels the session read from "-" (default "stdin").
	StdinName string
}

// Problems counts what went wrong with inputs that did not stop the report.
type Problems struct {
	NotTranscripts int
	Failed         int
}

// Generate reports every session in inputs (files, directories searched
// recursively for *.jsonl, newest first, or "-" for standard input) to w,
// one at a time. Problems with single inputs go to errw and are counted;
// the error return is for failures writing the report.
func Generate(inputs []string, stdin io.Reader, opt Options, w Writer, errw io.Writer) (Problems, error) {
	if err := w.Begin(); err != nil {
		return Problems{}, err
	}
	// A policy that never changes a result never needs the texts: reading
	// only their sizes is faster and holds less.
	opt.Read.SizesOnly = opt.Policy.Inert()
	render := func(s *transcript.Session) ([]byte, error) { return opt.render(s, w) }
	p, err := each(inputs, stdin, opt, render, w.Write, errw)
	if err != nil {
		return p, err
	}
	return p, w.End()
}

// each reads every session in inputs, turns each into a T with process on
// the reading goroutines, and hands the results to emit in input order.
// An input that cannot be read is reported to errw and counted.
func each[T any](inputs []string, stdin io.Reader, opt Options, process func(*transcript.Session) (T, error), emit func(T) error, errw io.Writer) (Problems, error) {
	var p Problems
	complain := func(err error) {
		var nt *transcript.NotTranscriptError
		if errors.As(err, &nt) {
			p.NotTranscripts++
		} else {
			p.Failed++
		}
		fmt.Fprintf(errw, "spillway: %s\n", termtext.Escape(err.Error()))
	}
	handle := func(_ string, v T, err error) error {
		if err != nil {
			complain(err)
			return nil
		}
		return emit(v)
	}
	for _, in := range inputs {
		if in == "-" {
			name := opt.StdinName
			if name == "" {
				name = "stdin"
			}
			var v T
			s, err := transcript.Read(stdin, name, opt.Read)
			if err == nil {
				v, err = process(s)
			}
			if err := handle(name, v, err); err != nil {
				return p, err
			}
			continue
		}
		paths, err := expand(in)
		if err != nil {
			complain(err)
			continue
		}
		if err := transcript.Each(paths, opt.Read, opt.Workers, process, handle); err != nil {
			return p, err
		}
	}
	return p, nil
}

// render replays one session and renders its report, on the reading
// goroutine, so sessions are reported in parallel.
func (opt Options) render(s *transcript.Session, w Writer) ([]byte, error) {
	rs, err := opt.session(s)
	if err != nil {
		return nil, err
	}
	return w.Render(rs)
}

// session replays one session and builds its report.
func (opt Options) session(s *transcript.Session) (*Session, error) {
	var counter replay.TokenCounter
	if !opt.Policy.Inert() && opt.Counter != nil {
		counter = tokens.NewCache(opt.Counter)
	}
	prep, err := replay.Prepare(context.Background(), s, counter, opt.Prices, nil)
	if err != nil {
		return nil, err
	}
	var store replay.SpillStore
	if opt.SpillRoot != "" {
		store = spill.Dir{Root: opt.SpillRoot, Session: s.ID, Policy: opt.Policy.Name}
	}
	rp, err := prep.Replay(opt.Policy, replay.Options{Store: store})
	if err != nil {
		return nil, err
	}
	return Build(rp), nil
}

// expand turns a directory into the session files below it.
func expand(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	files, err := transcript.Find(path)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no sessions found (looked for *.jsonl files, recursively)", path)
	}
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.Path
	}
	return out, nil
}

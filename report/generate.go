package report

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// Options configure Generate.
type Options struct {
	Prices  *pricing.Table
	Read    transcript.Options
	Workers int
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
	var p Problems
	complain := func(err error) {
		var nt *transcript.NotTranscriptError
		if errors.As(err, &nt) {
			p.NotTranscripts++
		} else {
			p.Failed++
		}
		fmt.Fprintf(errw, "spillway: %s\n", Clean(err.Error()))
	}
	if err := w.Begin(); err != nil {
		return p, err
	}
	for _, in := range inputs {
		if in == "-" {
			name := opt.StdinName
			if name == "" {
				name = "stdin"
			}
			s, err := transcript.Read(stdin, name, opt.Read)
			if err != nil {
				complain(err)
				continue
			}
			if err := w.Session(Build(s, opt.Prices)); err != nil {
				return p, err
			}
			continue
		}
		paths, err := expand(in)
		if err != nil {
			complain(err)
			continue
		}
		err = transcript.ReadEach(paths, opt.Read, opt.Workers, func(path string, s *transcript.Session, err error) error {
			if err != nil {
				complain(err)
				return nil
			}
			return w.Session(Build(s, opt.Prices))
		})
		if err != nil {
			return p, err
		}
	}
	return p, w.End()
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

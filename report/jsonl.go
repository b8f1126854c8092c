package report

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spillway-dev/spillway/internal/ledger"
)

// jsonlWriter writes one JSON object per API call, flat, with the columns
// of calls.parquet: for log pipelines that take a line at a time.
type jsonlWriter struct {
	w    io.Writer
	warn func(string)
}

func (j *jsonlWriter) warnTo(warn func(string)) { j.warn = warn }

func (j *jsonlWriter) Begin() error { return nil }
func (j *jsonlWriter) End() error   { return nil }

func (j *jsonlWriter) Render(s *Session) ([]byte, error) {
	var buf bytes.Buffer
	if len(s.Results) > 0 && s.Results[0].Text != nil {
		return renderTexts(s)
	}
	rows := Tables(s)
	for _, w := range rows.Warnings {
		if j.warn != nil && w.Table == "calls" {
			j.warn(w.Text)
		}
	}
	for _, c := range rows.Calls {
		line, err := encodeJSON(&c, false)
		if err != nil {
			return nil, fmt.Errorf("encode a call of %s: %w", s.Path, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

func (j *jsonlWriter) Write(data []byte) error {
	_, err := j.w.Write(data)
	return err
}

// jsonlFile is jsonlWriter into calls.jsonl of a folder, put in place at
// the end (outFiles).
type jsonlFile struct {
	jsonlWriter
	dir string
	out outFiles
}

func (j *jsonlFile) Begin() error {
	if err := os.MkdirAll(j.dir, 0o755); err != nil {
		return fmt.Errorf("jsonl output folder: %w", err)
	}
	j.out.dir = j.dir
	f, err := j.out.create("calls.jsonl")
	if err != nil {
		return fmt.Errorf("jsonl output: %w", err)
	}
	j.w = f
	return nil
}

func (j *jsonlFile) End() error { return j.out.commit() }

// Abort removes the file begun; see outFiles.Abort.
func (j *jsonlFile) Abort() { j.out.Abort() }

// Open returns the writer for format: to out, a folder, for parquet (which
// needs one) and jsonl (standard output without one); to w for the others,
// which take no folder.
func Open(format, out string, w io.Writer, prices string) (Writer, error) {
	switch {
	case format == "parquet" && out == "":
		return nil, fmt.Errorf("--format parquet writes sessions.parquet, calls.parquet and results.parquet into a folder: name it with --out DIR")
	case format == "parquet":
		return &parquetWriter{dir: out}, nil
	case format == "jsonl" && out != "":
		return &jsonlFile{dir: out}, nil
	case format == "jsonl":
		return &jsonlWriter{w: w}, nil
	case out != "":
		return nil, fmt.Errorf("--out is for --format parquet and jsonl; %s goes to standard output", format)
	}
	return NewWriter(format, w, prices)
}

// textRow is a row of results.parquet with the result's texts: what
// report --texts --format jsonl writes, a line per result.
type textRow struct {
	ResultRow
	Text      string        `json:"text"`
	TextAfter string        `json:"text_after"`
	Realized  *ledger.Entry `json:"realized"`
}

// renderTexts writes a line per result of s and its sub-agents, in the
// order Tables makes their rows.
func renderTexts(s *Session) ([]byte, error) {
	var buf bytes.Buffer
	rows := Tables(s).Results
	k := 0
	for _, part := range append([]*Session{s}, s.Subagents...) {
		for i := range part.Results {
			r := &part.Results[i]
			row := textRow{ResultRow: rows[k], Realized: r.Realized}
			k++
			if r.Text != nil {
				row.Text, row.TextAfter = *r.Text, *r.TextAfter
			}
			line, err := encodeJSON(&row, false)
			if err != nil {
				return nil, fmt.Errorf("encode a result of %s: %w", s.Path, err)
			}
			buf.Write(line)
			buf.WriteByte('\n')
		}
	}
	return buf.Bytes(), nil
}

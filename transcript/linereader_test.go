package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestLineReader: a LineReader, reused from line to line (forwards, then
// backwards), decodes every line of the shared Claude Code and Codex logs
// as a new Decoder fed that line alone does: the same session, or the
// same error.
func TestLineReader(t *testing.T) {
	var files []string
	files = append(files, sharedtest.Transcripts(t, "claude-code_*.jsonl")...)
	files = append(files, sharedtest.Transcripts(t, "codex_*.jsonl")...)
	var results atomic.Int64
	t.Cleanup(func() {
		if results.Load() == 0 && len(files) > 0 {
			t.Error("no line held a result")
		}
	})
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			format := FormatClaude
			if strings.HasPrefix(filepath.Base(path), "codex_") {
				format = FormatCodex
			}
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			order := make([]int, 0, 2*len(lines))
			for i := range lines {
				order = append(order, i)
			}
			for i := range lines {
				order = append(order, len(lines)-1-i)
			}
			opt := Options{Format: format}
			lr := NewLineReader(opt)
			for _, i := range order {
				d := NewDecoder(path, opt)
				want, wantErr := feedOne(d, lines[i])
				got, err := lr.Read(path, lines[i])
				if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
					t.Fatalf("line %d: error %v, a new decoder's %v", i+1, err, wantErr)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("line %d (-a new decoder's +the LineReader's):\n%s", i+1, d)
				}
				if got != nil {
					results.Add(int64(len(got.Results())))
				}
			}
		})
	}
}

func feedOne(d *Decoder, line []byte) (*Session, error) {
	if err := d.Feed(line); err != nil {
		return nil, err
	}
	return d.Finish()
}

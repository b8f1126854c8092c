package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestFinishedIsFinish: at cuts of Claude Code and Codex logs (every line
// of the fixtures, 24 of each real log), Finished gives what a decoder fed
// the same lines gives on Finish, and leaves its decoder reading on as
// if the log had not ended. Real Codex logs are cut inside requests whose
// token count is still to come, which Finish closes with a warning.
func TestFinishedIsFinish(t *testing.T) {
	claude, _ := filepath.Glob(filepath.Join("..", "testdata", "claude", "*.jsonl"))
	codex, _ := filepath.Glob(filepath.Join("..", "testdata", "codex", "*", "*.jsonl"))
	var real []string
	if !testing.Short() {
		real = append(sharedtest.Transcripts(t, "codex_*.jsonl"), sharedtest.Transcripts(t, "claude-code_*.jsonl")...)
	}
	open := 0 // cuts inside a request, its count not yet written
	for _, path := range append(append(claude, codex...), real...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		every := 1
		if strings.HasPrefix(filepath.Base(path), "codex_") || strings.HasPrefix(filepath.Base(path), "claude-code_") {
			every = max(1, len(lines)/24)
		}
		name := filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
		for _, sizesOnly := range []bool{false, true} {
			opt := Options{SizesOnly: sizesOnly}
			dec := NewDecoder(path, opt)
			for i, line := range lines {
				if err := dec.Feed(line); err != nil {
					t.Fatalf("%s line %d: %v", name, i+1, err)
				}
				if (i+1)%every != 0 && i != len(lines)-1 {
					continue
				}
				got, ok := dec.Finished()
				if !ok {
					continue // the format is not known yet
				}
				fresh := NewDecoder(path, opt)
				for _, l := range lines[:i+1] {
					fresh.Feed(l)
				}
				want, err := fresh.Finish()
				if err != nil {
					t.Fatalf("%s cut after line %d: %v", name, i+1, err)
				}
				if !reflect.DeepEqual(want, got) {
					t.Fatalf("%s cut after line %d, sizes only %v: Finished differs from Finish:\n%s", name, i+1, sizesOnly, firstDiff(cmp.Diff(want, got)))
				}
				for _, w := range want.Warnings {
					if w.Message == codexNoLastCount {
						open++
					}
				}
			}
		}
	}
	if len(real) > 0 && open == 0 {
		t.Errorf("no cut fell inside a Codex request")
	}
	t.Logf("%d cuts inside a Codex request", open)
}

// firstDiff is the start of a long diff.
func firstDiff(d string) string {
	if len(d) > 4000 {
		return d[:4000] + "…"
	}
	return d
}

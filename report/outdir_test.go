package report

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestOutAllOrNone: a report into a folder that fails anywhere (a write,
// a folder where a table goes, a table that cannot be put in place) leaves
// the tables there before as they were, all of them, and no temporary
// file; one that succeeds replaces them all.
func TestOutAllOrNone(t *testing.T) {
	pol, _ := policy.Preset("none")
	opt := Options{Prices: pricing.Default(), Policy: pol}
	input := []string{fixture("claude.jsonl")}
	old := map[string]string{"sessions.parquet": "old sessions", "calls.parquet": "old calls", "results.parquet": "old results", "notes.txt": "the user's"}
	plant := func(t *testing.T) string {
		dir := t.TempDir()
		for name, text := range old {
			os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
		}
		return dir
	}
	held := func(dir string) map[string]string {
		got := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			got[e.Name()] = string(b)
			if e.IsDir() {
				got[e.Name()] = "folder"
			}
		}
		return got
	}
	run := func(dir string, hook func(w *parquetWriter)) error {
		w, _ := Open("parquet", dir, nil, "")
		pw := w.(*parquetWriter)
		if err := w.Begin(); err != nil {
			return err
		}
		hook(pw)
		// Generate begins it again: Begin once, as Generate would.
		_, err := generateBegun([]string{input[0]}, opt, w)
		return err
	}
	t.Run("write fails", func(t *testing.T) {
		dir := plant(t)
		defer func(n int) { rowGroupRows = n }(rowGroupRows)
		rowGroupRows = 1
		err := run(dir, func(p *parquetWriter) { p.out.files[1].Close() }) // as a full disk would
		if err == nil {
			t.Fatal("no error")
		}
		if diff := cmp.Diff(old, held(dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
	})
	t.Run("last write fails", func(t *testing.T) {
		dir := plant(t)
		err := run(dir, func(p *parquetWriter) { p.out.files[2].Close() }) // results are written last, at the end
		if err == nil || !strings.Contains(err.Error(), "write results.parquet") {
			t.Fatalf("error %v", err)
		}
		if diff := cmp.Diff(old, held(dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
	})
	t.Run("folder at a table's name", func(t *testing.T) {
		dir := plant(t)
		os.Remove(filepath.Join(dir, "results.parquet"))
		os.Mkdir(filepath.Join(dir, "results.parquet"), 0o700)
		err := run(dir, func(*parquetWriter) {})
		if err == nil || !strings.Contains(err.Error(), "results.parquet is a folder: no table written") {
			t.Errorf("error %v", err)
		}
		want := map[string]string{"sessions.parquet": "old sessions", "calls.parquet": "old calls", "results.parquet": "folder", "notes.txt": "the user's"}
		if diff := cmp.Diff(want, held(dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
	})
	t.Run("a table not put in place", func(t *testing.T) {
		dir := plant(t)
		defer func() { renameFile = os.Rename }()
		renameFile = func(from, to string) error {
			if filepath.Base(to) == "results.parquet" {
				return errors.New("no room")
			}
			return os.Rename(from, to)
		}
		err := run(dir, func(*parquetWriter) {})
		if err == nil || !strings.Contains(err.Error(), "no room; no table written") {
			t.Errorf("error %v", err)
		}
		if diff := cmp.Diff(old, held(dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
	})
	t.Run("success", func(t *testing.T) {
		dir := plant(t)
		if err := run(dir, func(*parquetWriter) {}); err != nil {
			t.Fatal(err)
		}
		got := held(dir)
		if len(got) != 4 || got["notes.txt"] != "the user's" || !strings.HasPrefix(got["calls.parquet"], "PAR1") || !strings.HasPrefix(got["sessions.parquet"], "PAR1") || !strings.HasPrefix(got["results.parquet"], "PAR1") {
			t.Errorf("folder holds %d files: %v", len(got), got["notes.txt"])
		}
	})
}

// generateBegun is Generate for a writer already begun.
func generateBegun(inputs []string, opt Options, w Writer) (Problems, error) {
	return Generate(inputs, nil, opt, begun{w}, io.Discard)
}

// begun passes everything to a Writer but Begin, done already.
type begun struct{ Writer }

func (begun) Begin() error { return nil }
func (b begun) Abort()     { Abort(b.Writer) }

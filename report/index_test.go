package report

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// These tests hold internal/index's totals to the report's. They live
// here rather than beside the index so that the index's tests, which CI
// runs under the race detector, do not build this package and the Parquet
// writer it brings.

// indexTotals are the figures an index.Entry shares with the report's
// session totals.
type indexTotals struct {
	Path        string
	Subagents   []string
	APICalls    int
	CopiedCalls int
	Recorded    index.Tokens
	CostUSD     *float64
	Results     int
	ResultBytes int64
	Compactions int
	// Parts are the sub-agents' own calls and cost.
	Parts []indexPart
}

type indexPart struct {
	Path     string
	APICalls int
	CostUSD  *float64
}

// reportedTotals is `spillway report --format json` over paths, with no
// policy.
func reportedTotals(t *testing.T, paths []string) []indexTotals {
	t.Helper()
	pol, err := policy.Preset("none")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := NewWriter("json", &out, "")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Prices: pricing.Default(), Policy: pol}
	if _, err := Generate(paths, nil, opt, w, io.Discard); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sessions []struct {
			Path      string `json:"path"`
			Subagents []struct {
				Path   string `json:"path"`
				Totals struct {
					APICalls int      `json:"api_calls"`
					CostUSD  *float64 `json:"cost_usd"`
				} `json:"totals"`
			} `json:"subagents"`
			Totals struct {
				APICalls    int `json:"api_calls"`
				CopiedCalls int `json:"copied_calls"`
				Recorded    struct {
					Input         int64 `json:"input"`
					CacheCreation int64 `json:"cache_creation"`
					CacheRead     int64 `json:"cache_read"`
					Output        int64 `json:"output"`
				} `json:"recorded"`
				CostUSD     *float64 `json:"cost_usd"`
				ToolResults int      `json:"tool_results"`
				ResultBytes int64    `json:"result_bytes"`
				Compactions int      `json:"compactions"`
			} `json:"totals"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var want []indexTotals
	for _, s := range doc.Sessions {
		tt := s.Totals
		r := indexTotals{Path: s.Path, APICalls: tt.APICalls, CopiedCalls: tt.CopiedCalls,
			Recorded: index.Tokens{Input: tt.Recorded.Input, CacheCreation: tt.Recorded.CacheCreation, CacheRead: tt.Recorded.CacheRead, Output: tt.Recorded.Output},
			CostUSD:  tt.CostUSD, Results: tt.ToolResults, ResultBytes: tt.ResultBytes, Compactions: tt.Compactions}
		for _, sub := range s.Subagents {
			r.Subagents = append(r.Subagents, sub.Path)
			r.Parts = append(r.Parts, indexPart{sub.Path, sub.Totals.APICalls, sub.Totals.CostUSD})
		}
		want = append(want, r)
	}
	return want
}

// indexedTotals are the index's entries over paths, read with opt.
func indexedTotals(t *testing.T, opt index.Options, paths []string) []indexTotals {
	t.Helper()
	inputs, err := app.Resolve(paths, app.SystemEnv())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	entries, _, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []indexTotals
	for _, e := range entries {
		var parts []indexPart
		for _, p := range e.SubagentParts {
			parts = append(parts, indexPart{p.Path, p.APICalls, p.CostUSD})
		}
		got = append(got, indexTotals{Path: e.Path, Subagents: e.Subagents, APICalls: e.APICalls, CopiedCalls: e.CopiedCalls,
			Recorded: e.Recorded, CostUSD: e.CostUSD, Results: e.Results, ResultBytes: e.ResultBytes, Compactions: e.Compactions, Parts: parts})
	}
	return got
}

// dollarsClose compares dollars to $1e-9: the report's and the index's
// sums add the same figures in the same order, so only printing may round.
var dollarsClose = cmp.Comparer(func(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) <= 1e-9
})

// indexWays runs test on copies of folders as the index reads files
// written in the last quarter of an hour ("live": through decoders it
// keeps, to read on from where they end) and as it reads older ones
// ("whole": each into an arena that the next file reuses, on two workers
// whatever the machine has). The index tells them apart by a file's
// modification time, so the copies are dated now or a day ago.
func indexWays(t *testing.T, folders []string, test func(t *testing.T, opt index.Options, folders []string)) {
	for _, way := range []struct {
		name string
		age  time.Duration
		opt  index.Options
	}{
		{"live", 0, index.Options{NoCache: true}},
		{"whole", 24 * time.Hour, index.Options{NoCache: true, Workers: 2}},
	} {
		t.Run(way.name, func(t *testing.T) {
			mod := time.Now().Add(-way.age)
			var copies []string
			for _, f := range folders {
				copies = append(copies, dated(t, f, mod))
			}
			test(t, way.opt, copies)
		})
	}
}

// dated copies the folder src into a folder of the same name under a new
// temporary folder, every file modified at mod, and returns the copy.
func dated(t *testing.T, src string, mod time.Time) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, mod, mod)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// sameTotals compares the report's totals over paths with the index's.
func sameTotals(t *testing.T, opt index.Options, paths []string) {
	t.Helper()
	want := reportedTotals(t, paths)
	if len(want) == 0 {
		t.Fatalf("no session reported in %v", paths)
	}
	if diff := cmp.Diff(want, indexedTotals(t, opt, paths), dollarsClose); diff != "" {
		t.Errorf("index differs from report (-report +index):\n%s", diff)
	}
}

// TestIndexSameAsReport pins the index's totals to the report's, session
// by session, on every fixture and real log: sub-agents under their
// parents, copies of responses counted once.
func TestIndexSameAsReport(t *testing.T) {
	sets := map[string][]string{
		"subagents": {filepath.Join("..", "internal", "app", "testdata", "projects")},
		"fixtures":  {filepath.Join("..", "testdata", "claude"), filepath.Join("..", "testdata", "codex"), filepath.Join("..", "testdata", "transcripts")},
	}
	if testing.Short() {
		delete(sets, "fixtures")
	}
	for name, folders := range sets {
		t.Run(name, func(t *testing.T) { indexWays(t, folders, sameTotals) })
	}
}

// TestIndexSameAsReportShared is TestIndexSameAsReport on the real logs,
// as their folder and each named on its own, as 200 paths would be.
func TestIndexSameAsReportShared(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "transcripts")
	indexWays(t, []string{dir}, func(t *testing.T, opt index.Options, copies []string) {
		files, err := filepath.Glob(filepath.Join(copies[0], "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for name, paths := range map[string][]string{"folder": copies, "paths": files} {
			t.Run(name, func(t *testing.T) { sameTotals(t, opt, paths) })
		}
	})
}

package index_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/report"
)

// totals are the figures an Entry shares with the report's session totals.
type totals struct {
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
	Parts []part
}

type part struct {
	Path     string
	APICalls int
	CostUSD  *float64
}

// reported is `spillway report --format json` over paths, with no policy.
func reported(t *testing.T, paths []string) []totals {
	t.Helper()
	pol, err := policy.Preset("none")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := report.NewWriter("json", &out, "")
	if err != nil {
		t.Fatal(err)
	}
	opt := report.Options{Prices: pricing.Default(), Policy: pol}
	if _, err := report.Generate(paths, nil, opt, w, io.Discard); err != nil {
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
	var want []totals
	for _, s := range doc.Sessions {
		tt := s.Totals
		r := totals{Path: s.Path, APICalls: tt.APICalls, CopiedCalls: tt.CopiedCalls,
			Recorded: index.Tokens{Input: tt.Recorded.Input, CacheCreation: tt.Recorded.CacheCreation, CacheRead: tt.Recorded.CacheRead, Output: tt.Recorded.Output},
			CostUSD:  tt.CostUSD, Results: tt.ToolResults, ResultBytes: tt.ResultBytes, Compactions: tt.Compactions}
		for _, sub := range s.Subagents {
			r.Subagents = append(r.Subagents, sub.Path)
			r.Parts = append(r.Parts, part{sub.Path, sub.Totals.APICalls, sub.Totals.CostUSD})
		}
		want = append(want, r)
	}
	return want
}

func totalsOf(entries []index.Entry) []totals {
	var got []totals
	for _, e := range entries {
		var parts []part
		for _, p := range e.SubagentParts {
			parts = append(parts, part{p.Path, p.APICalls, p.CostUSD})
		}
		got = append(got, totals{Path: e.Path, Subagents: e.Subagents, APICalls: e.APICalls, CopiedCalls: e.CopiedCalls,
			Recorded: e.Recorded, CostUSD: e.CostUSD, Results: e.Results, ResultBytes: e.ResultBytes, Compactions: e.Compactions, Parts: parts})
	}
	return got
}

// costsClose compares dollars to $1e-9: the report's and the index's sums
// add the same figures in the same order, so only printing may round.
var costsClose = cmp.Comparer(func(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) <= 1e-9
})

// readPaths runs test as the index reads files written in the last
// quarter of an hour ("live": through decoders it keeps, to read on from
// where they end) and as it reads older ones ("whole": each into an arena
// that the next file reuses, on two workers whatever the machine has).
func readPaths(t *testing.T, test func(t *testing.T, opt index.Options)) {
	t.Run("live", func(t *testing.T) { test(t, index.Options{}) })
	t.Run("whole", func(t *testing.T) {
		index.SetLiveWindow(t, 0)
		test(t, index.Options{Workers: 2})
	})
}

func scan(t *testing.T, opt index.Options, paths []string) ([]index.Entry, []index.Warning) {
	t.Helper()
	inputs, err := app.Resolve(paths, app.SystemEnv())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	entries, warnings, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return entries, warnings
}

// TestSameAsReport pins the index's totals to the report's, session by
// session, on every fixture and real log: sub-agents under their parents,
// copies of responses counted once.
func TestSameAsReport(t *testing.T) {
	sets := map[string][]string{
		"subagents": {filepath.Join("..", "app", "testdata", "projects")},
		"fixtures":  {filepath.Join("..", "..", "testdata", "claude"), filepath.Join("..", "..", "testdata", "codex"), filepath.Join("..", "..", "testdata", "transcripts")},
	}
	if testing.Short() {
		delete(sets, "fixtures")
	}
	for name, paths := range sets {
		t.Run(name, func(t *testing.T) {
			want := reported(t, paths)
			readPaths(t, func(t *testing.T, opt index.Options) {
				opt.NoCache = true
				entries, _ := scan(t, opt, paths)
				if diff := cmp.Diff(want, totalsOf(entries), costsClose); diff != "" {
					t.Errorf("index differs from report (-report +index):\n%s", diff)
				}
			})
		})
	}
}

// TestSameAsReportShared is TestSameAsReport on the real logs, each
// named on its own, as 200 paths would be.
func TestSameAsReportShared(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "transcripts")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for name, paths := range map[string][]string{"folder": {dir}, "paths": files} {
		t.Run(name, func(t *testing.T) {
			want := reported(t, paths)
			readPaths(t, func(t *testing.T, opt index.Options) {
				opt.NoCache = true
				entries, _ := scan(t, opt, paths)
				if diff := cmp.Diff(want, totalsOf(entries), costsClose); diff != "" {
					t.Errorf("index differs from report (-report +index):\n%s", diff)
				}
			})
		})
	}
}

// TestFleetCorpus pins the index to the generated many-sessions corpus:
// every session's totals as the generator wrote them, its sub-agents
// under it and a resumed session's copies counted in the session resumed.
func TestFleetCorpus(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.DefaultFleet
	shape.Claude, shape.Codex, shape.MeanCalls, shape.ResumeEvery = 45, 15, 30, 10
	want, err := corpus.WriteFleet(dir, shape)
	if err != nil {
		t.Fatal(err)
	}
	readPaths(t, func(t *testing.T, opt index.Options) {
		opt.NoCache = true
		entries, warnings := scan(t, opt, []string{dir})
		if len(warnings) > 0 {
			t.Errorf("warnings: %v", warnings)
		}
		got := map[string]corpus.Totals{}
		files, copied := 0, 0
		for _, e := range entries {
			got[e.Path] = corpus.Totals{Calls: e.APICalls - e.CopiedCalls, Input: e.Recorded.Input, CacheCreation: e.Recorded.CacheCreation,
				CacheRead: e.Recorded.CacheRead, Output: e.Recorded.Output}
			files += 1 + len(e.Subagents)
			copied += e.CopiedCalls
		}
		if diff := cmp.Diff(want.Sessions, got); diff != "" {
			t.Errorf("sessions (-generated +indexed):\n%s", diff)
		}
		if files != want.Files || copied == 0 {
			t.Errorf("%d files, %d copies indexed; want %d files and the resumed sessions' copies", files, copied, want.Files)
		}
	})
}

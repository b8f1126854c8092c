package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/internal/slowtest"
	"github.com/spillway-dev/spillway/report"
)

// TestSessionListMatchesReport checks every figure the list shows of each
// real session against the report of the same folder under the same
// policy: calls, cost before and after, tokens saved, the largest result,
// and the hazards, which the list looks for once its chart is in.
func TestSessionListMatchesReport(t *testing.T) {
	for _, tt := range []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"shared", func(t *testing.T) string {
			slowtest.OptIn(t, "reads and counts every shared transcript twice")
			return filepath.Join(sharedtest.Dir(t), "transcripts")
		}},
		// A Codex parent, its fork and its sub-agent, known as one only when
		// read with the parent; and Claude Code and Codex sessions with a
		// sub-agent folder and a model without a price.
		{"codex family", func(*testing.T) string { return filepath.Join("..", "testdata", "codex", "family") }},
		{"by fixture", func(*testing.T) string { return filepath.Join("..", "report", "testdata", "by") }},
	} {
		t.Run(tt.name, func(t *testing.T) { checkListAgainstReport(t, tt.dir(t)) })
	}
}

func checkListAgainstReport(t *testing.T, dir string) {
	pol, err := policy.Preset(policy.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	opt := app.Options{Prices: pricing.Default(), Policy: pol, Counter: counter}

	cache := t.TempDir()
	sources := []struct {
		name string
		src  func() *sessions.Service
	}{
		{"index", func() *sessions.Service { return indexSessions(t, []string{dir}, opt, "") }},
		// The second opens the cache the first wrote: rows from the cache.
		{"index cache written", func() *sessions.Service { return indexSessions(t, []string{dir}, opt, cache) }},
		{"index cache read", func() *sessions.Service { return indexSessions(t, []string{dir}, opt, cache) }},
	}
	var out bytes.Buffer
	w, err := report.NewWriter("json", &out, opt.Prices.Source)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Generate([]string{dir}, nil, opt, w, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, s := range sources {
		t.Run(s.name, func(t *testing.T) { matchReport(t, s.src(), pol, out.Bytes()) })
	}
}

// indexSessions lists paths as the program does, through a session index
// caching in dir, or in none when dir is "".
func indexSessions(t testing.TB, paths []string, opt app.Options, dir string) *sessions.Service {
	t.Helper()
	ix, err := index.Open(index.Options{Prices: opt.Prices, Read: opt.Read, CacheDir: dir, NoCache: dir == ""})
	if err != nil {
		t.Fatal(err)
	}
	src := sessions.NewIndexed(paths, app.Env{}, opt, ix)
	src.Ahead = AheadOf // as the program's list
	return src
}

func matchReport(t *testing.T, src *sessions.Service, pol policy.Policy, reportJSON []byte) {
	rows, warnings, err := src.Scan(context.Background(), nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("scan: %v %v", err, warnings)
	}
	var mu sync.Mutex
	saved := map[string]sessions.Savings{}
	var paths []string
	for _, r := range rows {
		paths = append(paths, r.Path)
	}
	keep := func(s sessions.Savings) {
		mu.Lock()
		saved[s.Path] = s
		mu.Unlock()
	}
	if err := src.Replay(context.Background(), pol, paths, keep); err != nil {
		t.Fatal(err)
	}
	var later []string
	for path, s := range saved {
		if s.Point.HazardsLater {
			later = append(later, path)
		}
	}
	if err := src.Hazards(context.Background(), pol, later, keep); err != nil {
		t.Fatal(err)
	}

	type session struct {
		Path    string `json:"path"`
		Results []struct {
			Bytes int64 `json:"bytes"`
		} `json:"results"`
		Totals struct {
			APICalls  int      `json:"api_calls"`
			Copied    int      `json:"copied_calls"`
			Cost      *float64 `json:"cost_usd"`
			CostAfter *float64 `json:"cost_usd_after"`
			Saved     int64    `json:"saved_tokens"`
			Hazards   struct {
				UsedHidden       int `json:"used_hidden"`
				SuppressedUnseen int `json:"suppressed_unseen"`
				Stale            int `json:"stale"`
			} `json:"hazards"`
		} `json:"totals"`
		Subagents []struct {
			Results []struct {
				Bytes int64 `json:"bytes"`
			} `json:"results"`
		} `json:"subagents"`
	}
	var doc struct{ Sessions []session }
	if err := json.Unmarshal(reportJSON, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sessions) != len(rows) {
		t.Fatalf("%d rows, report has %d sessions", len(rows), len(doc.Sessions))
	}
	byPath := map[string]sessions.Row{}
	for _, r := range rows {
		byPath[r.Path] = r
	}
	same := func(a, b *float64) bool {
		return (a == nil) == (b == nil) && (a == nil || math.Abs(*a-*b) < 1e-9)
	}
	hazards := 0
	defer func() { t.Logf("%d hazards, %d sessions' looked for after their replay", hazards, len(later)) }()
	for _, s := range doc.Sessions {
		r, ok := byPath[s.Path]
		if !ok {
			t.Errorf("%s: not listed", s.Path)
			continue
		}
		name := filepath.Base(s.Path)
		var largest int64
		for _, res := range s.Results {
			largest = max(largest, res.Bytes)
		}
		for _, sub := range s.Subagents {
			for _, res := range sub.Results {
				largest = max(largest, res.Bytes)
			}
		}
		sv := saved[s.Path]
		h := s.Totals.Hazards
		hazards += h.UsedHidden + h.SuppressedUnseen + h.Stale
		if sv.Point.HazardsLater || sv.Point.Hazards.UsedHidden != h.UsedHidden || sv.Point.Hazards.SuppressedUnseen != h.SuppressedUnseen || sv.Point.Hazards.Stale != h.Stale {
			t.Errorf("%s: list hazards %+v (later %v); report %+v", name, sv.Point.Hazards, sv.Point.HazardsLater, h)
		}
		// The calls billed in this log, as report --by session counts them.
		if r.Calls != s.Totals.APICalls-s.Totals.Copied || !same(r.Cost, s.Totals.Cost) || r.LargestResult != largest ||
			!same(sv.Point.CostAfter, s.Totals.CostAfter) || sv.Point.Saved != s.Totals.Saved || sv.Err != nil {
			t.Errorf("%s: list calls %d cost %v after %v saved %d largest %d (%v); report %d %v %v %d %d",
				name, r.Calls, fmtCost(r.Cost), fmtCost(sv.Point.CostAfter), sv.Point.Saved, r.LargestResult, sv.Err,
				s.Totals.APICalls-s.Totals.Copied, fmtCost(s.Totals.Cost), fmtCost(s.Totals.CostAfter), s.Totals.Saved, largest)
		}
	}
}

func fmtCost(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestSessionViewMatchesReport opens every session of the fixtures with
// sub-agents and copies from the list and checks the view's totals, its
// sub-agents' calls counted in, against the report of the same folder:
// calls billed, cost before and after, tokens saved.
func TestSessionViewMatchesReport(t *testing.T) {
	for _, dir := range []string{filepath.Join("..", "testdata", "codex", "family"), filepath.Join("..", "report", "testdata", "by")} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			pol, err := policy.Preset(policy.DefaultPreset)
			if err != nil {
				t.Fatal(err)
			}
			opt := app.Options{Prices: pricing.Default(), Policy: pol, Counter: counter}
			var out bytes.Buffer
			w, err := report.NewWriter("json", &out, opt.Prices.Source)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := report.Generate([]string{dir}, nil, opt, w, io.Discard); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Sessions []struct {
					Path   string `json:"path"`
					Totals struct {
						APICalls  int      `json:"api_calls"`
						Copied    int      `json:"copied_calls"`
						Cost      *float64 `json:"cost_usd"`
						CostAfter *float64 `json:"cost_usd_after"`
						Saved     int64    `json:"saved_tokens"`
					} `json:"totals"`
				}
			}
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			// Long after the logs were written: none is live.
			m := newListModel(t, []string{dir}, policy.DefaultPreset, 120, 40, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
			same := func(a, b *float64) bool {
				return (a == nil) == (b == nil) && (a == nil || math.Abs(*a-*b) < 1e-9)
			}
			for _, s := range doc.Sessions {
				press(t, m, "g")
				for m.fleet.list.current() != s.Path {
					before := m.fleet.list.cursor
					press(t, m, "j")
					if m.fleet.list.cursor == before {
						t.Fatalf("%s is not listed", s.Path)
					}
				}
				press(t, m, "enter")
				v := m.sess
				tot := v.replay.Totals
				for _, sub := range v.subs {
					tot = tot.Plus(sub.replay.Totals)
				}
				if calls := v.table.billed(); calls != s.Totals.APICalls-s.Totals.Copied || !same(tot.Cost, s.Totals.Cost) ||
					!same(tot.CostAfter, s.Totals.CostAfter) || tot.SavedPerCall != s.Totals.Saved {
					t.Errorf("%s: view %d calls, cost %v → %v, saved %d; report %d, %v → %v, %d", filepath.Base(s.Path),
						calls, fmtCost(tot.Cost), fmtCost(tot.CostAfter), tot.SavedPerCall,
						s.Totals.APICalls-s.Totals.Copied, fmtCost(s.Totals.Cost), fmtCost(s.Totals.CostAfter), s.Totals.Saved)
				}
				press(t, m, "esc")
			}
		})
	}
}

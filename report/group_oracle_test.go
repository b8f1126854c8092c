package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// byMeta is the part of the oracle's by-day-meta.json the tests use.
type byMeta struct {
	Cuts     map[string]struct{ Since, Until string } `json:"cuts"`
	Sessions map[string]map[string]struct {
		Files []string `json:"files"`
	} `json:"sessions"`
}

// oracleLayout lays the shared logs out as ccusage read them for the by/
// files, as links in a temporary folder: Claude Code's main logs in
// projects/transcripts/, the sub-agent log under its session's subagents
// folder, Codex's rollouts in sessions/. It returns the Claude and Codex
// folders and the meta file.
func oracleLayout(t *testing.T) (claude, codex string, meta byMeta, shared string) {
	t.Helper()
	shared = sharedtest.Dir(t)
	data, err := os.ReadFile(filepath.Join(shared, "oracle", "by", "by-day-meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	claude = filepath.Join(root, "claude", "projects", "transcripts")
	codex = filepath.Join(root, "codex", "sessions")
	link := func(name, at string) {
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(shared, "transcripts", name), at); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	for stem, s := range meta.Sessions["claude"] {
		link(s.Files[0], filepath.Join(claude, stem+".jsonl"))
		for i, sub := range s.Files[1:] {
			link(sub, filepath.Join(claude, stem, "subagents", fmt.Sprintf("agent-%d.jsonl", i)))
		}
	}
	for stem, s := range meta.Sessions["codex"] {
		link(s.Files[0], filepath.Join(codex, stem+".jsonl"))
	}
	if len(meta.Sessions["claude"]) == 0 || len(meta.Sessions["codex"]) == 0 {
		t.Fatal("the meta file lists no sessions: the test checks nothing")
	}
	return claude, codex, meta, shared
}

// groupsDoc is the grouped part of a JSON report.
type groupsDoc struct {
	Schema   string
	By       string
	Zone     string
	Sessions []map[string]json.RawMessage
	Groups   []Group
	Total    Group
}

// groupJSON runs a grouped JSON report of dir.
func groupJSON(t *testing.T, dir string, g Grouping) groupsDoc {
	t.Helper()
	none, _ := policy.Preset("none")
	var out, errw bytes.Buffer
	p, err := GenerateGroups([]string{dir}, nil, Options{Prices: pricing.Default(), Policy: none}, g, "json", &out, &errw)
	if err != nil || p != (Problems{}) {
		t.Fatalf("%v %+v %s", err, p, errw.String())
	}
	var doc groupsDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return doc
}

// ccusageRow is a row of a ccusage daily or session report (and its
// totals): Claude's cost is totalCost, Codex's costUSD.
type ccusageRow struct {
	Date                string   `json:"date"`
	SessionID           string   `json:"sessionId"`
	InputTokens         int64    `json:"inputTokens"`
	OutputTokens        int64    `json:"outputTokens"`
	CacheCreationTokens int64    `json:"cacheCreationTokens"`
	CacheReadTokens     int64    `json:"cacheReadTokens"`
	TotalCost           *float64 `json:"totalCost"`
	CostUSD             *float64 `json:"costUSD"`
}

func (r ccusageRow) cost() float64 {
	if r.TotalCost != nil {
		return *r.TotalCost
	}
	return *r.CostUSD
}

func (r ccusageRow) tokens() Tokens {
	return Tokens{Input: r.InputTokens, Output: r.OutputTokens, CacheCreation: r.CacheCreationTokens, CacheRead: r.CacheReadTokens}
}

// TestOracleByDayAndSession checks the totals per day and per session, and
// their sum, against ccusage 20.0.24's daily and session reports of every
// shared log (by/by-day-*.json), whole and cut with --since and --until,
// to the token and $1e-6. ccusage cuts a session report by the dates of
// the calls, not of the sessions: a session that runs past the cut keeps
// only the calls inside it, as spillway's groups do.
func TestOracleByDayAndSession(t *testing.T) {
	claude, codex, meta, shared := oracleLayout(t)
	dirs := map[string]string{"claude": claude, "codex": codex}
	for _, agent := range []string{"claude", "codex"} {
		for _, kind := range []string{"day", "session"} {
			for _, cut := range []bool{false, true} {
				name := fmt.Sprintf("by-day-%s-%s", agent, kind)
				if cut {
					name += "-cut"
				}
				t.Run(name, func(t *testing.T) {
					var oracle struct {
						Daily    []ccusageRow
						Sessions []ccusageRow
						Totals   ccusageRow
					}
					data, err := os.ReadFile(filepath.Join(shared, "oracle", "by", name+".json"))
					if err != nil {
						t.Fatal(err)
					}
					if err := json.Unmarshal(data, &oracle); err != nil {
						t.Fatal(err)
					}
					g := Grouping{By: kind, Zone: time.UTC, ZoneName: "UTC"}
					if cut {
						c := meta.Cuts[agent]
						if g.Since, err = ParseBound(c.Since, time.UTC, false); err != nil {
							t.Fatal(err)
						}
						if g.Until, err = ParseBound(c.Until, time.UTC, true); err != nil {
							t.Fatal(err)
						}
					}
					doc := groupJSON(t, dirs[agent], g)
					want := oracle.Daily
					if kind == "session" {
						want = oracle.Sessions
					}
					got := map[string]Group{}
					for _, gr := range doc.Groups {
						key := gr.Key
						if kind == "session" {
							key = strings.TrimSuffix(filepath.Base(key), ".jsonl")
						}
						got[key] = gr
					}
					if len(doc.Groups) != len(want) {
						t.Errorf("%d groups, ccusage %d", len(doc.Groups), len(want))
					}
					check := func(key string, gr Group, w ccusageRow) {
						t.Helper()
						if gr.Recorded != w.tokens() {
							t.Errorf("%s: tokens %+v, ccusage %+v", key, gr.Recorded, w.tokens())
						}
						if gr.CostUSD == nil || math.Abs(*gr.CostUSD-w.cost()) > 1e-6 {
							t.Errorf("%s: cost %v, ccusage %.9f", key, gr.CostUSD, w.cost())
						}
					}
					for _, w := range want {
						key := w.Date + w.SessionID
						gr, ok := got[key]
						if !ok {
							t.Errorf("no group %s", key)
							continue
						}
						check(key, gr, w)
					}
					check("total", doc.Total, oracle.Totals)
					if cut && len(want) == len(meta.Sessions[agent]) && kind == "session" {
						t.Error("the cut leaves every session in: it checks nothing of the cut")
					}
				})
			}
		}
	}
}

// TestByCcusageGroupings pins the groupings the oracle files do not hold,
// weeks, months, models and days in other zones, to the figures ccusage
// 20.0.24 printed for the same layout of the shared logs (claude weekly,
// monthly, daily -z ZONE, and codex monthly and daily, all --offline),
// checked against each other by hand: each week is the sum of its days
// in the UTC daily report, each model's cost the sum of its
// modelBreakdowns, and Codex's per-model costs are its days', as each of
// those days ran one model.
func TestByCcusageGroupings(t *testing.T) {
	claude, codex, _, _ := oracleLayout(t)
	type row struct {
		key             string
		in, out, cw, cr int64
		cost            float64
	}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	la, _ := time.LoadLocation("America/Los_Angeles")
	tests := []struct {
		name string
		dir  string
		g    Grouping
		want []row
	}{
		{"claude weeks from Sunday, UTC", claude, Grouping{By: "week", Zone: time.UTC}, []row{
			{"2025-06-08", 114, 16769, 174552, 3754072, 2.0326686},
			{"2025-12-28", 860, 1632, 8467, 223265, 0.04193025},
			{"2026-01-18", 38, 563, 22988, 1114040, 0.71496},
			{"2026-01-25", 185, 2271, 402504, 11895589, 10.0305345},
			{"2026-05-03", 88, 72964, 282102, 4221728, 4.8318088},
			{"2026-05-17", 175, 91453, 209446, 10433401, 9.5983605},
		}},
		{"claude weeks in Tokyo", claude, Grouping{By: "week", Zone: tokyo}, []row{
			{"2025-06-08", 114, 16769, 174552, 3754072, 2.0326686},
			{"2025-12-28", 860, 1632, 8467, 223265, 0.04193025},
			{"2026-01-18", 38, 563, 22988, 1114040, 0.71496},
			{"2026-01-25", 185, 2271, 402504, 11895589, 10.0305345},
			{"2026-05-03", 88, 72964, 282102, 4221728, 4.8318088},
			{"2026-05-17", 175, 91453, 209446, 10433401, 9.5983605},
		}},
		{"claude months", claude, Grouping{By: "month", Zone: time.UTC}, []row{
			{"2025-06", 114, 16769, 174552, 3754072, 2.0326686},
			{"2026-01", 1083, 4466, 433959, 13232894, 10.78742475},
			{"2026-05", 263, 164417, 491548, 14655129, 14.4301693},
		}},
		{"claude models", claude, Grouping{By: "model", Zone: time.UTC}, []row{
			{"claude-haiku-4-5-20251001", 860, 1632, 8467, 223265, 0.04193025},
			{"claude-opus-4-5-20251101", 223, 2834, 425492, 13009629, 10.7454945},
			{"claude-opus-4-7", 224, 112098, 275340, 11972553, 11.5432465},
			{"claude-sonnet-4-20250514", 114, 16769, 174552, 3754072, 2.0326686},
			{"claude-sonnet-4-6", 39, 52319, 216208, 2682576, 2.8869228},
		}},
		// Los Angeles moves the 2026-01-21 and one 2026-05-04 session a day back.
		{"claude days in Los Angeles", claude, Grouping{By: "day", Zone: la}, []row{
			{"2025-06-08", 114, 16769, 174552, 3754072, 2.0326686},
			{"2026-01-02", 860, 1632, 8467, 223265, 0.04193025},
			{"2026-01-20", 38, 563, 22988, 1114040, 0.71496},
			{"2026-01-28", 185, 2271, 402504, 11895589, 10.0305345},
			{"2026-05-03", 49, 20645, 65894, 1539152, 1.944886},
			{"2026-05-04", 12, 16674, 54103, 574278, 0.7470474},
			{"2026-05-05", 27, 35645, 162105, 2108298, 2.1398754},
			{"2026-05-21", 175, 91453, 209446, 10433401, 9.5983605},
		}},
		{"codex days in Tokyo", codex, Grouping{By: "day", Zone: tokyo}, []row{
			{"2026-03-13", 96556, 19360, 0, 1160576, 0.821934},
			{"2026-04-22", 46443, 2248, 0, 210048, 0.2023395},
			{"2026-05-03", 12466, 1884, 0, 72704, 0.155202},
			{"2026-05-08", 12156, 492, 0, 20864, 0.085972},
			{"2026-07-11", 1646437, 98116, 0, 34132736, 24.83613764},
		}},
		{"codex months", codex, Grouping{By: "month", Zone: time.UTC}, []row{
			{"2026-03", 96556, 19360, 0, 1160576, 0.821934},
			{"2026-04", 46443, 2248, 0, 210048, 0.2023395},
			{"2026-05", 24622, 2376, 0, 93568, 0.241174},
			{"2026-07", 1646437, 98116, 0, 34132736, 24.83613764},
		}},
		{"codex models", codex, Grouping{By: "model", Zone: time.UTC}, []row{
			{"gpt-5.4", 142999, 21608, 0, 1370624, 1.0242735},
			{"gpt-5.5", 24622, 2376, 0, 93568, 0.241174},
			{"gpt-5.6-luna", 286582, 679, 0, 599296, 0.13982684},
			{"gpt-5.6-sol", 1359855, 97437, 0, 33533440, 24.6963108},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := groupJSON(t, tt.dir, tt.g)
			if len(doc.Groups) != len(tt.want) {
				t.Errorf("%d groups, want %d", len(doc.Groups), len(tt.want))
			}
			for i, w := range tt.want {
				if i >= len(doc.Groups) {
					break
				}
				gr := doc.Groups[i]
				want := Tokens{Input: w.in, Output: w.out, CacheCreation: w.cw, CacheRead: w.cr}
				if gr.Key != w.key || gr.Recorded != want || gr.CostUSD == nil || math.Abs(*gr.CostUSD-w.cost) > 1e-6 {
					t.Errorf("group %d: %s %+v %s; want %s %+v $%.8f", i, gr.Key, gr.Recorded, fmtUSD(gr.CostUSD), w.key, want, w.cost)
				}
			}
		})
	}
}

func fmtUSD(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("$%.8f", *v)
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestSubagents pins how a session's sub-agents are reported: under it,
// each with its own totals, and in its totals. claude-sonnet-4-5 is $3,
// $3.75, $0.30 and $15 per million input, cache write, cache read and
// output tokens.
func TestSubagents(t *testing.T) {
	type totals struct {
		Recorded Tokens   `json:"recorded"`
		APICalls int      `json:"api_calls"`
		Results  int      `json:"tool_results"`
		CostUSD  *float64 `json:"cost_usd"`
	}
	type session struct {
		Path      string    `json:"path"`
		Calls     []Call    `json:"calls"`
		Totals    totals    `json:"totals"`
		Subagents []session `json:"subagents"`
	}
	usd := func(v float64) *float64 { return &v }
	p := func(name string) string { return filepath.Join(subagentFixture, "p", name) }
	// agent-f1: 2 + 100 + 0 + 4 = $0.000006 + $0.000375 + $0.000060.
	flat := session{Path: p("agent-f1.jsonl"), Totals: totals{Recorded: Tokens{2, 100, 0, 4}, APICalls: 1, CostUSD: usd(0.000441)}}
	// agent-x1: 7 + 300 + 0 + 30 = $0.000021 + $0.001125 + $0.000450.
	nested := session{Path: p(filepath.Join("sess-a", "subagents", "agent-x1.jsonl")), Totals: totals{Recorded: Tokens{7, 300, 0, 30}, APICalls: 1, CostUSD: usd(0.001596)}}
	// The session's own calls, 10 + 1,000 + 0 + 50 and 5 + 200 + 1,000 + 20
	// tokens ($0.004530 + $0.001365 = $0.005895), and the two above.
	want := session{Path: p("sess-a.jsonl"), Subagents: []session{flat, nested},
		Totals: totals{Recorded: Tokens{24, 1600, 1000, 104}, APICalls: 4, Results: 1, CostUSD: usd(0.007932)}}
	for _, preset := range []string{"none", "harness-rs-0.0.50"} {
		t.Run(preset, func(t *testing.T) {
			pol, err := policy.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
			var out bytes.Buffer
			w, _ := NewWriter("json", &out, "")
			if p, err := Generate([]string{subagentFixture}, nil, opt, w, io.Discard); err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v", err, p)
			}
			var doc struct{ Sessions []session }
			if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			var got *session
			var paths []string
			for i := range doc.Sessions {
				paths = append(paths, doc.Sessions[i].Path)
				if doc.Sessions[i].Path == want.Path {
					got = &doc.Sessions[i]
				}
			}
			if want := []string{p("sess-b.jsonl"), p("sess-a-copy.jsonl"), p("sess-a.jsonl")}; !cmp.Equal(paths, want) {
				t.Fatalf("sessions %q, want %q (no sub-agent of its own)", paths, want)
			}
			if len(got.Calls) != 2 {
				t.Errorf("%d calls listed, want the session's own 2", len(got.Calls))
			}
			got.Calls = nil
			for i := range got.Subagents {
				got.Subagents[i].Calls = nil
			}
			if diff := cmp.Diff(want, *got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	var out bytes.Buffer
	w, _ := NewWriter("text", &out, "")
	none, _ := policy.Preset("none")
	if _, err := Generate([]string{p("sess-a.jsonl")}, nil, Options{Prices: pricing.Default(), Policy: none}, w, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"  sub-agent " + flat.Path + ": 1 API call, 0 tool results, cost $0.000441\n",
		"  sub-agent " + nested.Path + ": 1 API call, 0 tool results, cost $0.001596\n",
		"  4 API calls, 1 tool result (2.9 KiB), 0 compactions, 2 sub-agents included\n",
		"  recorded: input 24 · cache write 1,600 · cache read 1,000 · output 104\n",
		"  cost: $0.007932\n",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the text report of the session named alone lacks %q:\n%s", line, out.String())
		}
	}
}

// TestOracleSubagentLayout lays the shared Claude Code logs out as Claude
// Code writes them, the sub-agent log under its session's subagents folder,
// and checks each session's totals, sub-agent included, against ccusage's
// session report of that layout.
func TestOracleSubagentLayout(t *testing.T) {
	shared := sharedtest.Dir(t)
	var meta struct {
		Sessions map[string]map[string]struct {
			Files []string `json:"files"`
		} `json:"sessions"`
	}
	data, err := os.ReadFile(filepath.Join(shared, "oracle", "by", "by-day-meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	var oracle struct{ Sessions []oracleSession }
	data, err = os.ReadFile(filepath.Join(shared, "oracle", "by", "by-day-claude-session.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &oracle); err != nil {
		t.Fatal(err)
	}
	// The layout, of links to the logs where they lie.
	project := filepath.Join(t.TempDir(), "projects", "transcripts")
	link := func(name, at string) {
		if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(shared, "transcripts", name), at); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	subagents := 0
	for stem, s := range meta.Sessions["claude"] {
		link(s.Files[0], filepath.Join(project, stem+".jsonl"))
		for i, sub := range s.Files[1:] {
			link(sub, filepath.Join(project, stem, "subagents", fmt.Sprintf("agent-%d.jsonl", i)))
			subagents++
		}
	}
	if subagents == 0 {
		t.Fatal("the layout has no sub-agent log: the test checks nothing of them")
	}
	none, _ := policy.Preset("none")
	var out bytes.Buffer
	w, _ := NewWriter("json", &out, "")
	if p, err := Generate([]string{project}, nil, Options{Prices: pricing.Default(), Policy: none}, w, io.Discard); err != nil || p != (Problems{}) {
		t.Fatalf("%v %+v", err, p)
	}
	var doc struct {
		Sessions []struct {
			Path      string
			Totals    Totals
			Subagents []json.RawMessage
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Sessions) != len(oracle.Sessions) {
		t.Errorf("%d sessions, ccusage %d", len(doc.Sessions), len(oracle.Sessions))
	}
	got := map[string]Totals{}
	withSubs := 0
	for _, s := range doc.Sessions {
		got[strings.TrimSuffix(filepath.Base(s.Path), ".jsonl")] = s.Totals
		withSubs += len(s.Subagents)
	}
	if withSubs != subagents {
		t.Errorf("%d sub-agents reported under their session, %d laid out", withSubs, subagents)
	}
	for _, want := range oracle.Sessions {
		tot, ok := got[want.SessionID]
		if !ok {
			t.Errorf("no session %s", want.SessionID)
			continue
		}
		wantTok := Tokens{Input: want.InputTokens, Output: want.OutputTokens, CacheCreation: want.CacheCreationTokens, CacheRead: want.CacheReadTokens}
		if tot.Recorded != wantTok {
			t.Errorf("%s: tokens %+v, ccusage %+v", want.SessionID, tot.Recorded, wantTok)
		}
		if tot.CostUSD == nil || math.Abs(*tot.CostUSD-want.TotalCost) > 1e-6 {
			t.Errorf("%s: cost %v, ccusage %.9f", want.SessionID, tot.CostUSD, want.TotalCost)
		}
	}
}

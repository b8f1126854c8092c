package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestCodexFamilyBilledOnce reads a folder holding a Codex session P, a
// fork F of it and a sub-agent S it spawned. Both children begin with a
// replay of P's two token counts (1,000 and 500 input, 100 and 50 of them
// cached, 200 and 100 output) before their own. Billed once, that is
//
//	P: uncached 900 + 450 = 1,350, cached 150, output 300
//	F: uncached 90, cached 10, output 20 (its own 100 / 10 / 20)
//	S: uncached 45, cached 5, output 10 (its own 50 / 5 / 10)
//
// at gpt-5.2's $1.75 input, $0.175 cached and $14 output per million:
// P $0.00236250 + $0.00002625 + $0.00420000 = $0.00658875, F $0.00043925,
// S $0.000219625. S is reported under P and counted in its totals; F, a
// session the user chose to go on from, is a session of its own.
func TestCodexFamilyBilledOnce(t *testing.T) {
	type totals struct {
		Recorded Tokens   `json:"recorded"`
		Copied   int      `json:"copied_calls"`
		CostUSD  *float64 `json:"cost_usd"`
	}
	type session struct {
		SessionID string    `json:"session_id"`
		Relation  string    `json:"relation"`
		Totals    totals    `json:"totals"`
		Subagents []session `json:"subagents"`
	}
	usd := func(v float64) *float64 { return &v }
	want := map[string]session{
		"P": {SessionID: "P", Relation: "none",
			Totals:    totals{Recorded: Tokens{Input: 1395, CacheRead: 155, Output: 310}, Copied: 2, CostUSD: usd(0.006808375)},
			Subagents: []session{{SessionID: "S", Relation: "subagent", Totals: totals{Recorded: Tokens{Input: 45, CacheRead: 5, Output: 10}, Copied: 2, CostUSD: usd(0.000219625)}}}},
		"F": {SessionID: "F", Relation: "fork",
			Totals: totals{Recorded: Tokens{Input: 90, CacheRead: 10, Output: 20}, Copied: 2, CostUSD: usd(0.00043925)}},
	}
	none, err := policy.Preset("none")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, _ := NewWriter("json", &out, "")
	dir := filepath.Join("..", "testdata", "codex", "family")
	if p, err := Generate([]string{dir}, nil, Options{Prices: pricing.Default(), Policy: none}, w, io.Discard); err != nil || p != (Problems{}) {
		t.Fatalf("%v %+v", err, p)
	}
	var doc struct{ Sessions []session }
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]session{}
	var billed Tokens
	var cost float64
	for _, s := range doc.Sessions {
		got[s.SessionID] = s
		billed.Input += s.Totals.Recorded.Input
		billed.CacheRead += s.Totals.Recorded.CacheRead
		billed.Output += s.Totals.Recorded.Output
		cost += *s.Totals.CostUSD
	}
	near := cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-12 })
	if diff := cmp.Diff(want, got, near); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	if billed != (Tokens{Input: 1485, CacheRead: 165, Output: 330}) || math.Abs(cost-0.007247625) > 1e-12 {
		t.Errorf("the sessions add up to %+v and $%.9f, want 1,485 / 165 / 330 and $0.007247625, billed once", billed, cost)
	}

	out.Reset()
	w, _ = NewWriter("text", &out, "")
	if _, err := Generate([]string{dir}, nil, Options{Prices: pricing.Default(), Policy: none}, w, io.Discard); err != nil {
		t.Fatal(err)
	}
	if text := out.String(); !strings.Contains(text, "2 calls marked copy: responses "+filepath.Join(dir, "rollout-2026-05-12T08-00-00-P.jsonl")+" counts") {
		t.Errorf("the text report does not name the session that counts the sub-agent's replay:\n%s", text)
	}
}

package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestMicroDollarRange: a session at the largest token counts read
// (10^12 of each kind a call), priced at $1 a token, costs $4×10^12 a
// call: 4×10^18 micro-dollars fit int64 (up to 9.22×10^18), three calls'
// 1.2×10^19 do not. The session's cost is left empty with a warning, as a
// token count past any real one is, rather than wrapped to -9.2×10^18;
// each call keeps its own figure instead of 0 once the sum is past.
func TestMicroDollarRange(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	for i := range 3 {
		fmt.Fprintf(&log, `{"type":"assistant","uuid":"u%d","sessionId":"s","timestamp":"2026-01-02T10:00:0%dZ","requestId":"r%d",`+
			`"message":{"id":"m%d","model":"big","stop_reason":"end_turn","usage":{"input_tokens":1000000000000,"output_tokens":1000000000000,`+
			`"cache_creation_input_tokens":1000000000000,"cache_read_input_tokens":1000000000000},"content":[{"type":"text","text":"hi"}]}}`+"\n", i, i, i, i)
	}
	path := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(path, []byte(log.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	prices, err := pricing.Parse([]byte(`{"big":{"input_cost_per_token":1,"output_cost_per_token":1,"cache_read_input_token_cost":1,"cache_creation_input_token_cost":1}}`), "test")
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset("none")
	opt := Options{Prices: prices, Policy: pol}
	const perCall = 4_000_000_000_000_000_000 // 4 × 10^12 tokens at $1, in micro-dollars
	warning := path + ": its cost of $1.2e+13 is past what int64 micro-dollars hold ($9.22337e+12): left empty"

	var lines, errs bytes.Buffer
	w, _ := Open("jsonl", "", &lines, "")
	if _, err := Generate([]string{path}, nil, opt, w, &errs); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&lines)
	n := 0
	for sc.Scan() {
		var c CallRow
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if c.CostMicroUSD == nil || *c.CostMicroUSD != perCall {
			t.Errorf("jsonl call %d: cost %v, want %d", c.CallIndex, c.CostMicroUSD, int64(perCall))
		}
		n++
	}
	if n != 3 || strings.Contains(errs.String(), "cost of") {
		t.Errorf("jsonl: %d calls, warnings %q; want 3 calls and none (no session row)", n, errs.String())
	}

	errs.Reset()
	out := filepath.Join(dir, "tables")
	w, _ = Open("parquet", out, nil, "")
	if _, err := Generate([]string{path}, nil, opt, w, &errs); err != nil {
		t.Fatal(err)
	}
	s := readTable[SessionRow](t, filepath.Join(out, "sessions.parquet"))[0]
	if s.CostMicroUSD != nil || s.PricedCostMicroUSD != math.MaxInt64 || s.Warnings != 2 {
		t.Errorf("session: cost %v, priced %d, %d warnings; want empty, the most int64 holds, 2", s.CostMicroUSD, s.PricedCostMicroUSD, s.Warnings)
	}
	for _, c := range readTable[CallRow](t, filepath.Join(out, "calls.parquet")) {
		if c.CostMicroUSD == nil || *c.CostMicroUSD != perCall {
			t.Errorf("parquet call %d: cost %v, want %d", c.CallIndex, c.CostMicroUSD, int64(perCall))
		}
	}
	if got := errs.String(); !strings.Contains(got, "spillway: "+warning+"\n") || !strings.Contains(got, "its priced cost of $1.2e+13") {
		t.Errorf("warnings %q, want %q and the priced cost's", got, warning)
	}
}

// FuzzMicro: a figure in micro-dollars is the dollars rounded, or refused
// where int64 cannot hold it; never wrapped. Seeded with the sums that
// overflowed.
func FuzzMicro(f *testing.F) {
	for _, usd := range []float64{1.2e13, 8e12, 9.223372036854775e12, 9.223372036854776e12, -9.3e12, 0.0000005, math.NaN(), math.Inf(1)} {
		f.Add(usd)
	}
	f.Fuzz(func(t *testing.T, usd float64) {
		v, ok := micro(usd)
		want := math.Round(usd * 1e6)
		switch {
		case ok && float64(v) != want:
			t.Errorf("micro(%g) = %d, want %g", usd, v, want)
		case !ok && want >= math.MinInt64 && want < math.MaxInt64:
			t.Errorf("micro(%g) refused %g, which int64 holds", usd, want)
		}
	})
}

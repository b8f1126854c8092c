package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// ccusage's cost tests (rust/crates/ccusage/src/cost.rs, and the advisor
// test of rust/adapters/claude/src/lib.rs) use these made-up prices, per
// token.
const ccusagePrices = `{
	"test-model": {
		"input_cost_per_token": 1.0,
		"output_cost_per_token": 10.0,
		"cache_creation_input_token_cost": 1.25,
		"cache_read_input_token_cost": 0.1,
		"input_cost_per_token_above_200k_tokens": 2.0,
		"cache_creation_input_token_cost_above_200k_tokens": 1.5
	},
	"main-model": {"input_cost_per_token": 100, "output_cost_per_token": 100},
	"advisor-model": {"input_cost_per_token": 2, "output_cost_per_token": 3}
}`

// readSessions writes each file's lines under a temporary folder, reads
// them all both ways (in full and by size) and reconciles each set.
func readSessions(t *testing.T, files map[string]string, names ...string) (full, sizes []*transcript.Session) {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(files[name]+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, sizesOnly := range []bool{false, true} {
			s, err := transcript.ReadFile(path, transcript.Options{SizesOnly: sizesOnly})
			if err != nil {
				t.Fatal(err)
			}
			if sizesOnly {
				sizes = append(sizes, s)
			} else {
				full = append(full, s)
			}
		}
	}
	transcript.Reconcile(full)
	transcript.Reconcile(sizes)
	return full, sizes
}

func near(got *float64, want float64) bool { return got != nil && math.Abs(*got-want) < 1e-9 }

// TestCcusageCost ports ccusage's cost tests whose figures do not depend on
// a logged costUSD (spillway always prices the recorded tokens).
func TestCcusageCost(t *testing.T) {
	prices, err := pricing.Parse([]byte(ccusagePrices), "ccusage test prices")
	if err != nil {
		t.Fatal(err)
	}
	line := func(model, usage string) string {
		return `{"type":"assistant","timestamp":"2026-01-02T00:00:00.000Z","sessionId":"session","requestId":"r","message":{"id":"m","model":"` +
			model + `","stop_reason":"end_turn","usage":` + usage + `}}`
	}
	tests := []struct {
		name     string
		line     string
		recorded Tokens
		cost     float64
	}{
		// 10 five-minute writes at 1.25, 20 one-hour writes at twice the
		// input price (the table has no one-hour rate), 30 reads at 0.1.
		{"prices_cache_creation_breakdown_by_duration",
			line("test-model", `{"cache_creation_input_tokens":999,"cache_read_input_tokens":30,"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20}}`),
			Tokens{CacheCreation: 30, CacheRead: 30}, 55.5},
		{"falls_back_to_flat_cache_creation_rate_without_breakdown",
			line("test-model", `{"cache_creation_input_tokens":10}`),
			Tokens{CacheCreation: 10}, 12.5},
		// Writes are counted from the breakdown: 100 + 200.
		{"parses_cache_creation_breakdown_from_usage_json",
			line("test-model", `{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":300,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200}}`),
			Tokens{Input: 1, CacheCreation: 300, Output: 2}, 1 + 20 + 100*1.25 + 200*2},
		{"auto_falls_back_to_compute_when_no_logged_cost",
			line("test-model", `{"input_tokens":100,"output_tokens":200}`),
			Tokens{Input: 100, Output: 200}, 2100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full, sizes := readSessions(t, map[string]string{"s.jsonl": tt.line}, "s.jsonl")
			for _, s := range []*transcript.Session{full[0], sizes[0]} {
				r := buildWith(t, s, prices, "none")
				if r.Totals.Recorded != tt.recorded || !near(r.Totals.CostUSD, tt.cost) || !near(r.Calls[0].CostUSD, tt.cost) {
					t.Errorf("recorded %+v, cost %v (call %v); want %+v, %v", r.Totals.Recorded, human.USD(r.Totals.CostUSD), human.USD(r.Calls[0].CostUSD), tt.recorded, tt.cost)
				}
			}
		})
	}
}

// TestCcusageAdvisor ports calculates_advisor_cost_with_the_advisor_model:
// the advisor's 10 input and 2 output tokens cost 10 × 2 + 2 × 3 = 26 at
// advisor-model's prices. ccusage takes the main entry's logged costUSD
// (1.23); spillway prices its tokens, 1 × 100 + 2 × 100 = 300.
func TestCcusageAdvisor(t *testing.T) {
	prices, err := pricing.Parse([]byte(ccusagePrices), "ccusage test prices")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"projects/project-a/session-a/chat.jsonl": `{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","version":"1.2.3","sessionId":"session-a","message":{"id":"msg-parent","model":"main-model","usage":{"input_tokens":1,"output_tokens":2,"iterations":[{"type":"advisor_message","model":"advisor-model","input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}]}},"requestId":"req-parent","costUSD":1.23}`}
	full, sizes := readSessions(t, files, "projects/project-a/session-a/chat.jsonl")
	for _, s := range []*transcript.Session{full[0], sizes[0]} {
		r := buildWith(t, s, prices, "none")
		c := r.Calls[0]
		if !near(c.CostUSD, 300) || len(c.Extra) != 1 || c.Extra[0].Model != "advisor-model" ||
			c.Extra[0].Recorded != (Tokens{Input: 10, Output: 2}) || !near(c.Extra[0].CostUSD, 26) {
			t.Fatalf("call cost %s, extra %+v; want $300 and advisor-model's 10 + 2 tokens at $26", human.USD(c.CostUSD), c.Extra)
		}
		tot := r.Totals
		if !near(tot.CostUSD, 326) || tot.Recorded != (Tokens{Input: 11, Output: 4}) || len(tot.ByModel) != 2 {
			t.Fatalf("totals %s, %+v, by model %+v; want $326 over 11 + 4 tokens, two models", human.USD(tot.CostUSD), tot.Recorded, tot.ByModel)
		}
		for _, m := range tot.ByModel {
			want := map[string]float64{"advisor-model": 26, "main-model": 300}[m.Model]
			if m.APICalls != 1 || !near(m.CostUSD, want) {
				t.Errorf("by model %s: %d calls, %s; want 1, $%v", m.Model, m.APICalls, human.USD(m.CostUSD), want)
			}
		}
	}
}

// TestCopiesInReport reads ccusage's dedupes_copied_transcripts case, two
// copies of one response with the same serialized session id, and checks
// what each session's report says: the larger copy counts (input 200),
// the other is shown with counted_in, marked in the text, and adds nothing
// to its session's totals, which are $0, not unknown.
func TestCopiesInReport(t *testing.T) {
	const sonnet = `"model":"claude-sonnet-4-20250514"`
	a, b := "projects/project-a/session-a/chat.jsonl", "projects/project-a/session-b/chat.jsonl"
	files := map[string]string{
		a: `{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","sessionId":"session-a","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":100,"output_tokens":1}}}`,
		b: `{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","sessionId":"session-a","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":200,"output_tokens":1}}}`,
	}
	full, sizes := readSessions(t, files, a, b)
	for _, set := range [][]*transcript.Session{full, sizes} {
		copied, counting := buildWith(t, set[0], pricing.Default(), "none"), buildWith(t, set[1], pricing.Default(), "none")
		// claude-sonnet-4-20250514: $3 input, $15 output per million.
		if c := counting.Calls[0]; c.CountedIn != nil || !near(counting.Totals.CostUSD, 200*3e-6+15e-6) ||
			counting.Totals.Recorded != (Tokens{Input: 200, Output: 1}) || counting.Totals.CopiedCalls != 0 {
			t.Errorf("counting session: counted in %v, totals %+v", c.CountedIn, counting.Totals)
		}
		c := copied.Calls[0]
		if c.CountedIn == nil || *c.CountedIn != set[1].Path || !near(c.CostUSD, 100*3e-6+15e-6) {
			t.Fatalf("copy: counted in %v, cost %s", c.CountedIn, human.USD(c.CostUSD))
		}
		tot := copied.Totals
		if !near(tot.CostUSD, 0) || tot.Recorded != (Tokens{}) || tot.CopiedCalls != 1 || tot.APICalls != 1 || len(tot.ByModel) != 0 {
			t.Errorf("copy's totals %+v, want $0, nothing recorded, one copied call", tot)
		}

		var buf bytes.Buffer
		w, _ := NewWriter("json", &buf, "test prices")
		w.Begin()
		writeSession(t, w, copied)
		w.End()
		var doc struct {
			Sessions []struct {
				Calls []map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(set[1].Path)
		if diff := cmp.Diff(string(want), string(doc.Sessions[0].Calls[0]["counted_in"])); diff != "" {
			t.Errorf("counted_in (-want +got):\n%s", diff)
		}

		buf.Reset()
		w, _ = NewWriter("text", &buf, "")
		writeSession(t, w, copied)
		text := buf.String()
		if !strings.Contains(text, "copy $0.000315") || !strings.Contains(text, "1 call marked copy: responses "+termtext.Escape(set[1].Path)+" counts") {
			t.Errorf("text report does not mark the copy:\n%s", text)
		}
	}
}

// TestCcusageSessionTotals ports "aggregates session usage data" of the
// TypeScript loader: two responses without ids in one session add up
// (100 + 200 input, 50 + 100 output, 10 + 20 writes, 5 + 10 reads). Its
// costs come from the lines' costUSD, which spillway does not read: the
// lines name no model, so the cost is unknown, not $0.03.
func TestCcusageSessionTotals(t *testing.T) {
	files := map[string]string{"projects/project1/session1/chat.jsonl": `{"type":"assistant","timestamp":"2024-01-01T12:00:00Z","message":{"usage":{"input_tokens":100,"output_tokens":50,"cache_creation_input_tokens":10,"cache_read_input_tokens":5}},"costUSD":0.01}
{"type":"assistant","timestamp":"2024-01-01T12:00:00Z","message":{"usage":{"input_tokens":200,"output_tokens":100,"cache_creation_input_tokens":20,"cache_read_input_tokens":10}},"costUSD":0.02}`}
	full, sizes := readSessions(t, files, "projects/project1/session1/chat.jsonl")
	for _, s := range []*transcript.Session{full[0], sizes[0]} {
		tot := buildWith(t, s, pricing.Default(), "none").Totals
		if tot.APICalls != 2 || tot.Recorded != (Tokens{Input: 300, CacheCreation: 30, CacheRead: 15, Output: 150}) || tot.CostUSD != nil {
			t.Errorf("totals: %d calls, %+v, cost %s; want 2 calls, 300/30/15/150, unknown", tot.APICalls, tot.Recorded, human.USD(tot.CostUSD))
		}
	}
}

// TestCcusageUnmappedModel ports calculate_stays_strict_zero_for_unmapped_model
// as spillway means it: ccusage prices a model missing from its table at $0
// and flags it; spillway flags it too, and shows the cost as unknown.
func TestCcusageUnmappedModel(t *testing.T) {
	prices, err := pricing.Parse([]byte(ccusagePrices), "ccusage test prices")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"s.jsonl": `{"type":"assistant","timestamp":"2026-01-02T00:00:00.000Z","sessionId":"session","message":{"model":"model-not-in-map","usage":{"input_tokens":100,"output_tokens":200}},"costUSD":0.42}`}
	full, sizes := readSessions(t, files, "s.jsonl")
	for _, s := range []*transcript.Session{full[0], sizes[0]} {
		tot := buildWith(t, s, prices, "none").Totals
		if tot.CostUSD != nil || !cmp.Equal(tot.UnpricedModels, []string{"model-not-in-map"}) || tot.Recorded != (Tokens{Input: 100, Output: 200}) {
			t.Errorf("cost %s, unpriced %v, recorded %+v", human.USD(tot.CostUSD), tot.UnpricedModels, tot.Recorded)
		}
	}
}

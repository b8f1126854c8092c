package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestHarnessCost: Claude Code's own cost of a session (its cost-state
// record) is reported beside spillway's; where the two differ by more
// than a cent, the report says so, and why where the log tells. The one
// call is 100,000 input and 10,000 output tokens of claude-sonnet-4-5 at
// $3 and $15 a million: $0.45.
func TestHarnessCost(t *testing.T) {
	const call = `{"type":"assistant","uuid":"u1","sessionId":"s","version":"2.1.328","timestamp":"2026-12-01T10:00:00Z","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":100000,"output_tokens":10000},"content":[{"type":"text","text":"done"}]}}`
	state := func(total float64, unknown bool, models string) string {
		return fmt.Sprintf(`{"type":"cost-state","sessionId":"s","totalCostUSD":%g,"modelUsage":{%s},"hasUnknownModelCost":%v}`, total, models, unknown)
	}
	tests := []struct {
		name, state string
		note        string // "" where the two agree
	}{
		{"agree", state(0.45, false, `"claude-sonnet-4-5":{"costUSD":0.45}`), ""},
		{"within a cent", state(0.459, false, `"claude-sonnet-4-5":{"costUSD":0.459}`), ""},
		{"US-only inference", state(0.495, false, `"claude-sonnet-4-5":{"costUSD":0.495}`),
			"Claude Code priced claude-sonnet-4-5 at 1.1 times spillway's price: its premium for inference run only in the US (2.1.239 and later)"},
		{"a model of a sub-agent's", state(0.6, false, `"claude-sonnet-4-5":{"costUSD":0.45},"claude-haiku-4-5":{"costUSD":0.15}`),
			"Claude Code counts $0.150000 of claude-haiku-4-5, which no call of this log uses (a sub-agent's log not read with it?)"},
		{"unpriced by Claude Code", state(0, true, ``),
			"Claude Code had no price for a model it used and left its calls out; spillway prices $0.450000 of claude-sonnet-4-5, which Claude Code's total leaves out"},
		{"another price", state(0.9, false, `"claude-sonnet-4-5":{"costUSD":0.9}`),
			"Claude Code priced claude-sonnet-4-5 at $0.900000, spillway at $0.450000 (a tier or price the log does not name?)"},
	}
	none, _ := policy.Preset("none")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, []byte(call+"\n"+tt.state+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var js, text bytes.Buffer
			for format, out := range map[string]*bytes.Buffer{"json": &js, "text": &text} {
				w, _ := NewWriter(format, out, "")
				if _, err := Generate([]string{path}, nil, Options{Prices: pricing.Default(), Policy: none}, w, io.Discard); err != nil {
					t.Fatal(err)
				}
			}
			var doc struct {
				Sessions []struct {
					Totals struct {
						CostUSD         *float64 `json:"cost_usd"`
						HarnessCostUSD  *float64 `json:"harness_cost_usd"`
						HarnessCostNote *string  `json:"harness_cost_note"`
					}
				}
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			tot := doc.Sessions[0].Totals
			if tot.HarnessCostUSD == nil || tot.HarnessCostNote == nil || *tot.HarnessCostNote != tt.note {
				t.Errorf("harness cost %v, note %v; want note %q", tot.HarnessCostUSD, tot.HarnessCostNote, tt.note)
			}
			line := "  Claude Code's own cost: "
			if got := strings.Contains(text.String(), line); got != (tt.note != "") {
				t.Errorf("text report shows Claude Code's cost: %v, want %v:\n%s", got, tt.note != "", text.String())
			}
			if tt.note != "" && !strings.Contains(text.String(), fmt.Sprintf("%s$%.6f, spillway's $0.450000: %s\n", line, *tot.HarnessCostUSD, tt.note)) {
				t.Errorf("text report:\n%s", text.String())
			}
		})
	}
}

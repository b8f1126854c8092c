package pricing

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

func TestCost(t *testing.T) {
	tests := []struct {
		name  string
		model string
		usage transcript.Usage
		want  float64 // computed by hand from the table's per-token rates
	}{
		{"flat sonnet 4.5", "claude-sonnet-4-5",
			transcript.Usage{Input: 3, CacheCreation: 1000, CacheRead: 5000, Output: 1},
			// 3×3e-6 + 1000×3.75e-6 + 5000×3e-7 + 1×1.5e-5
			0.000009 + 0.00375 + 0.0015 + 0.000015},
		{"one-hour writes at their own rate", "claude-sonnet-4-5",
			transcript.Usage{Input: 5, CacheCreation: 2000, CacheCreation1h: 500, CacheRead: 6000, Output: 50},
			// 5×3e-6 + 1500×3.75e-6 + 500×6e-6 + 6000×3e-7 + 50×1.5e-5
			0.000015 + 0.005625 + 0.003 + 0.0018 + 0.00075},
		{"200K tier per kind", "claude-sonnet-4",
			transcript.Usage{Input: 250_000, CacheRead: 150_000},
			// input: 200,000×3e-6 + 50,000×6e-6; cache read 150,000×3e-7 stays under its own threshold
			0.6 + 0.3 + 0.045},
		{"200K tier on one-hour writes", "claude-sonnet-4-5",
			transcript.Usage{CacheCreation: 300_000, CacheCreation1h: 300_000},
			// 200,000×6e-6 + 100,000×1.2e-5
			1.2 + 1.2},
		{"272K tier reprices the whole request, fast ×2", "gpt-5.4",
			transcript.Usage{Input: 50_000, CacheRead: 250_000, Output: 100, Fast: true},
			// (50,000×5e-6 + 250,000×5e-7 + 100×2.25e-5) × 2
			(0.25 + 0.125 + 0.00225) * 2},
		{"exactly 272K stays at base", "gpt-5.5",
			transcript.Usage{Input: 272_000},
			272_000 * 5e-6},
		{"fast opus ×6", "claude-opus-4-7",
			transcript.Usage{Input: 1000, Fast: true},
			1000 * 5e-6 * 6},
		{"fast flag without a multiplier", "claude-sonnet-4-5",
			transcript.Usage{Output: 1000, Fast: true},
			1000 * 1.5e-5},
	}
	table := Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := table.Cost(tt.model, tt.usage)
			if !ok {
				t.Fatalf("%s has no price", tt.model)
			}
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("cost = %.12f, want %.12f", got, tt.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	tests := map[string]string{
		"claude-opus-4-7":                          "claude-opus-4-7",
		"claude-sonnet-4-20250514":                 "claude-sonnet-4-20250514",
		"claude-opus-4.7":                          "claude-opus-4-7",
		"claude-opus-4-7-20991231":                 "claude-opus-4-7",
		"claude-opus-4-7_20260416":                 "claude-opus-4-7",
		"claude-sonnet-4-5@20250929":               "claude-sonnet-4-5",
		"claude-opus-4-7[1m]":                      "claude-opus-4-7",
		"claude-opus-4-7-fast":                     "claude-opus-4-7",
		"anthropic/claude-opus-4-7":                "claude-opus-4-7",
		"openrouter/anthropic/claude-sonnet-4-6":   "claude-sonnet-4-6",
		"bedrock/anthropic.claude-sonnet-4-5-v1:0": "claude-sonnet-4-5",
		"us.anthropic.claude-opus-4-7":             "claude-opus-4-7",
		"gpt-5.5":                                  "gpt-5.5",
		// Not the same model: no price rather than a neighbour's.
		"claude-opus-4-9":  "",
		"claude-opus-4-0":  "",
		"gpt-5.5-mini":     "",
		"Claude-Opus-4-7":  "",
		"xclaude-opus-4-7": "",
		"<synthetic>":      "",
		"":                 "",
	}
	table := Default()
	for model, want := range tests {
		_, got, ok := table.Lookup(model)
		if got != want || ok != (want != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", model, got, ok, want)
		}
	}
}

func TestParse(t *testing.T) {
	// sample_spec as LiteLLM writes it: prices of 0 and prose in the
	// number fields.
	data := []byte(`{
		"sample_spec": {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0,
			"max_input_tokens": "max input tokens, if the provider specifies it. if not default to max_tokens",
			"litellm_provider": "one of https://docs.litellm.ai/docs/providers"},
		"plain-model": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "max_input_tokens": 128000.0},
		"image-model": {"output_cost_per_image": 0.04},
		"null-price": {"input_cost_per_token": null, "output_cost_per_token": 2e-6},
		"odd-row": {"input_cost_per_token": "1e-6", "output_cost_per_token": 2e-6}
	}`)
	table, err := Parse(data, "inline")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"plain-model"}, table.Models()); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if _, _, ok := table.Lookup("null-price"); ok {
		t.Error("a null price must leave the model unpriced, not priced at $0")
	}
	wantUnreadable := []string{`"odd-row": json: cannot unmarshal string into Go struct field Entry.input_cost_per_token of type float64`}
	if diff := cmp.Diff(wantUnreadable, table.Unreadable); diff != "" {
		t.Errorf("unreadable rows (-want +got):\n%s", diff)
	}
	// Without cache rates a cache read or 5-minute write is billed as input,
	// and a one-hour write at twice input.
	got, _ := table.Cost("plain-model", transcript.Usage{CacheRead: 10, CacheCreation: 30, CacheCreation1h: 20})
	if want := 10*1e-6 + 10*1e-6 + 20*2e-6; math.Abs(got-want) > 1e-15 {
		t.Errorf("cost = %g, want %g", got, want)
	}
	for _, bad := range []string{`[1,2]`, `{"a": {"mode": "chat"}}`, `{`} {
		if _, err := Parse([]byte(bad), "bad"); err == nil {
			t.Errorf("Parse(%s) should fail", bad)
		}
	}
}

// TestEmbeddedMatchesShared checks that the generated table is the shared
// price file, so regenerating is never forgotten.
func TestEmbeddedMatchesShared(t *testing.T) {
	shared, err := Load(filepath.Join(sharedtest.Dir(t), "prices", "prices.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shared.models, Default().models); diff != "" {
		t.Errorf("embedded table differs from the shared one; run go generate ./guard/pricing (-shared +embedded):\n%s", diff)
	}
}

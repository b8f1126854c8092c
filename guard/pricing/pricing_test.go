package pricing

import (
	"math"
	"os"
	"path/filepath"
	"slices"
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
		// A Bedrock region's profile costs its regional price (a tenth
		// more from Sonnet 4.5 on, as ccusage's exact keys have it); the
		// global profile the model's own.
		"us.anthropic.claude-opus-4-7":     "claude-opus-4-7",
		"global.anthropic.claude-opus-4-7": "claude-opus-4-7",
		"gpt-5.5":                          "gpt-5.5",
		// Anthropic's own alias of Claude Opus 4, which the dataset lists.
		"claude-opus-4-0": "claude-opus-4-0",
		// Proxies' prefixes: Bedrock, its regions, Vertex, OpenRouter.
		"bedrock/anthropic.claude-sonnet-4-5":         "claude-sonnet-4-5",
		"eu.anthropic.claude-haiku-4-5-20251001-v1:0": "claude-haiku-4-5-20251001",
		"bedrock/us.amazon.nova-pro-v1:0":             "amazon.nova-pro-v1:0",
		"mistral.mistral-large-2407-v1:0":             "mistral-large-2407",
		"vertex_ai/gemini-2.5-pro":                    "gemini-2.5-pro",
		"vertex_ai/claude-opus-4-5@20251101":          "claude-opus-4-5",
		"openrouter/moonshotai/kimi-k2":               "moonshotai/kimi-k2",
		"openrouter/anthropic/claude-opus-4.5":        "claude-opus-4-5",
		"openrouter/z-ai/glm-5":                       "glm-5",
		"grok-4.1-fast":                               "grok-4-1-fast",
		"glm-5.1":                                     "glm-5.1",
		// Not the same model: no price rather than a neighbour's.
		"claude-opus-4-9":    "",
		"gemini-2.5-pro@001": "",
		"gpt-5.5-mini":       "",
		"Claude-Opus-4-7":    "",
		"xclaude-opus-4-7":   "",
		"<synthetic>":        "",
		"":                   "",
	}
	table := Default()
	for model, want := range tests {
		_, got, ok := table.Lookup(model)
		if got != want || ok != (want != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", model, got, ok, want)
		}
	}
	// $5.50 and $27.50 per million: a tenth over Opus 4.7's $5 and $25.
	// With LiteLLM's provider prefix too: it was the model's own $5.
	for _, name := range []string{"us.anthropic.claude-opus-4-7", "bedrock/us.anthropic.claude-opus-4-7"} {
		if e, _, _ := table.Lookup(name); math.Abs(e.Input-5.5e-6) > 1e-15 || math.Abs(e.Output-27.5e-6) > 1e-15 {
			t.Errorf("%s: input %g, output %g per token", name, e.Input, e.Output)
		}
	}
	// Sonnet 4.5's long-context rates and window come with it: $6.60 over
	// 200K against its own $6, the window its own.
	own, _, _ := table.Lookup("claude-sonnet-4-5-20250929")
	e, _, _ := table.Lookup("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	if e.InputAbove200k == nil || math.Abs(*e.InputAbove200k-6.6e-6) > 1e-15 || e.MaxInputTokens != own.MaxInputTokens || own.MaxInputTokens == 0 {
		t.Errorf("us.anthropic.claude-sonnet-4-5-20250929-v1:0: above 200K %v, window %d (its own %d)", e.InputAbove200k, e.MaxInputTokens, own.MaxInputTokens)
	}
}

// TestMatchRules pins how a name is reported matched: by which layer and
// through which rewrites.
func TestMatchRules(t *testing.T) {
	layers := Default().Layers()
	tests := []struct {
		model string
		layer int
		rules []string
	}{
		{"claude-sonnet-4-5", 0, nil},
		{"bedrock/anthropic.claude-sonnet-4-5-v1:0", 0, []string{`prefix "bedrock/anthropic." dropped`, `suffix "-v1:0" dropped`}},
		{"openrouter/anthropic/claude-opus-4.5", 0, []string{`prefix "openrouter/anthropic/" dropped`, "dots as dashes"}},
		{"claude-sonnet-4-5@20250929", 0, []string{`date "@20250929" dropped`}},
		{"glm-5", 1, nil},
		{"openrouter/moonshotai/kimi-k2", 2, []string{`prefix "openrouter/" dropped`}},
		{"us.amazon.nova-pro-v1:0", 2, []string{`prefix "us." dropped`}},
	}
	for _, tt := range tests {
		m, ok := Default().Match(tt.model)
		if !ok {
			t.Errorf("%s: unpriced", tt.model)
			continue
		}
		if m.Layer != layers[tt.layer].Source || !cmp.Equal(m.Rules, tt.rules) {
			t.Errorf("%s: layer %q, rules %q; want layer %q, rules %q", tt.model, m.Layer, m.Rules, layers[tt.layer].Source, tt.rules)
		}
	}
}

// TestEmbeddedRates pins rates of the embedded table, written by hand from
// the published per-million prices: glm-5 and glm-5.1 as ccusage 20.0.24
// charges them, the rest as @pydantic/genai-prices 0.1.8 lists them.
func TestEmbeddedRates(t *testing.T) {
	r := func(v float64) *float64 { return &v }
	tests := []struct {
		model string
		want  Entry
	}{
		// $1.00 / $3.20 / $0.20 cached, writes free.
		{"glm-5", Entry{Input: 1e-6, Output: 3.2e-6, CacheRead: r(2e-7), CacheWrite: r(0), Provider: "zai"}},
		// $1.40 / $4.40 / $0.26 cached, writes free.
		{"glm-5.1", Entry{Input: 1.4e-6, Output: 4.4e-6, CacheRead: r(2.6e-7), CacheWrite: r(0), Provider: "zai"}},
		// Google: $1.25 / $10 / $0.125, above 200K $2.50 / $15 / $0.25.
		{"gemini-2.5-pro", Entry{Input: 1.25e-6, Output: 1e-5, CacheRead: r(1.25e-7),
			InputAbove200k: r(2.5e-6), OutputAbove200k: r(1.5e-5), CacheReadAbove200k: r(2.5e-7), Provider: "google"}},
		// DeepSeek's standard hours, 00:30-16:30 UTC: $0.27 / $1.10 / $0.07.
		{"deepseek-chat", Entry{Input: 2.7e-7, Output: 1.1e-6, CacheRead: r(7e-8), Provider: "deepseek"}},
		// Moonshot: $0.60 / $3.00 / $0.10.
		{"kimi-k2.5", Entry{Input: 6e-7, Output: 3e-6, CacheRead: r(1e-7), Provider: "moonshotai"}},
		// Qwen, as OpenRouter lists it: $0.65 / $3.25 / $0.13, writes $0.8125.
		{"qwen3-coder-plus", Entry{Input: 6.5e-7, Output: 3.25e-6, CacheRead: r(1.3e-7), CacheWrite: r(8.125e-7), Provider: "openrouter"}},
		// xAI: $3 / $15 / $0.75.
		{"grok-4", Entry{Input: 3e-6, Output: 1.5e-5, CacheRead: r(7.5e-7), Provider: "x-ai"}},
		// Mistral: $2 / $6, no cache price.
		{"mistral-large-latest", Entry{Input: 2e-6, Output: 6e-6, Provider: "mistral"}},
		// Bedrock: Nova Pro $0.80 / $3.20 / $0.20.
		{"bedrock/us.amazon.nova-pro-v1:0", Entry{Input: 8e-7, Output: 3.2e-6, CacheRead: r(2e-7), Provider: "aws"}},
		// OpenRouter's own row for Kimi K2: $0.57 / $2.30.
		{"openrouter/moonshotai/kimi-k2", Entry{Input: 5.7e-7, Output: 2.3e-6, Provider: "openrouter"}},
		// Anthropic's 1-hour writes: Opus 4 $15 / $75 / $1.50, writes $18.75, 1h $30.
		{"claude-opus-4-0", Entry{Input: 1.5e-5, Output: 7.5e-5, CacheRead: r(1.5e-6), CacheWrite: r(1.875e-5), CacheWrite1h: r(3e-5), Provider: "anthropic"}},
	}
	for _, tt := range tests {
		m, ok := Default().Match(tt.model)
		if !ok {
			t.Errorf("%s: unpriced", tt.model)
			continue
		}
		if diff := cmp.Diff(tt.want, m.Entry); diff != "" {
			t.Errorf("%s (matched %s): rates (-want +got):\n%s", tt.model, m.Key, diff)
		}
	}
	// A glm-5 call through Claude Code: 1,000 in, 2,000 written, 10,000
	// read, 500 out = $0.001 + $0 + $0.002 + $0.0016.
	got, _ := Default().Cost("glm-5", transcript.Usage{Input: 1000, CacheCreation: 2000, CacheRead: 10_000, Output: 500})
	if want := 0.001 + 0.002 + 0.0016; math.Abs(got-want) > 1e-12 {
		t.Errorf("glm-5 cost = %.12f, want %.12f", got, want)
	}
}

// TestSharedModelsPriced checks that every model the real transcripts name
// has a price, <synthetic> (Claude Code's own placeholder) aside.
func TestSharedModelsPriced(t *testing.T) {
	table := Default()
	seen := map[string]bool{}
	for _, path := range sharedtest.Transcripts(t, "*.jsonl") {
		s, err := transcript.ReadFile(path, transcript.Options{SizesOnly: true})
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		names := slices.Clone(s.Models)
		for _, c := range s.Calls {
			names = append(names, c.Model)
			for _, x := range c.Extra {
				names = append(names, x.Model)
			}
		}
		for _, name := range names {
			if name == "" || name == "<synthetic>" || seen[name] {
				continue
			}
			seen[name] = true
			if _, ok := table.Match(name); !ok {
				t.Errorf("%s (in %s) has no price", name, filepath.Base(path))
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no model names found")
	}
	t.Logf("%d model names, all priced", len(seen))
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
		"odd-row": {"input_cost_per_token": "1e-6", "output_cost_per_token": 2e-6},
		"negative": {"input_cost_per_token": -1e-6, "output_cost_per_token": 2e-6},
		"huge": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "cache_read_input_token_cost": 1e308},
		"fast": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "provider_specific_entry": {"fast": -2}}
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
	// A price no model has (negative, or past a million dollars a token,
	// whose sums reach infinity) leaves its row out, said, as a row that
	// does not decode.
	wantUnreadable := []string{
		`"fast": a fast-mode multiplier of -2, not between 0 and 1000`,
		`"huge": a price of 1e+308 a token, not between 0 and 1e+06`,
		`"negative": a price of -1e-06 a token, not between 0 and 1e+06`,
		`"odd-row": json: cannot unmarshal string into Go struct field Entry.input_cost_per_token of type float64`,
	}
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

// TestEmbeddedMatchesShared checks that the embedded table's first layer is
// the shared ccusage price file, so regenerating is never forgotten, and
// that every name in it is priced by it, whatever the later layers hold.
func TestEmbeddedMatchesShared(t *testing.T) {
	shared, err := Load(filepath.Join(sharedtest.Dir(t), "prices", "prices.json"))
	if err != nil {
		t.Fatal(err)
	}
	embedded := Default()
	if diff := cmp.Diff(shared.Models(), embedded.Layers()[0].Models); diff != "" {
		t.Errorf("embedded first layer differs from the shared file; run go generate ./guard/pricing (-shared +embedded):\n%s", diff)
	}
	for _, name := range shared.Models() {
		want, _ := shared.Match(name)
		got, ok := embedded.Match(name)
		if !ok || got.Layer != embedded.Layers()[0].Source || got.Key != name {
			t.Errorf("%s: matched %+v, want the first layer's own row", name, got)
			continue
		}
		if diff := cmp.Diff(want.Entry, got.Entry); diff != "" {
			t.Errorf("%s: rates differ (-shared +embedded):\n%s", name, diff)
		}
	}
}

// TestMaxInputTokens reads the context window a row gives, as a whole
// number or a float, and takes prose there as unknown without losing the
// row's prices; the embedded table has it where the shared file does.
func TestMaxInputTokens(t *testing.T) {
	table, err := Parse([]byte(`{
		"whole": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "max_input_tokens": 200000},
		"float": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "max_input_tokens": 128000.0},
		"prose": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6, "max_input_tokens": "see the docs"},
		"none":  {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
	}`), "inline")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]TokenLimit{"whole": 200_000, "float": 128_000, "prose": 0, "none": 0} {
		m, ok := table.Match(name)
		if !ok || m.Entry.MaxInputTokens != want {
			t.Errorf("%s: priced %v, max input %d, want %d", name, ok, m.Entry.MaxInputTokens, want)
		}
	}
	if len(table.Unreadable) != 0 {
		t.Errorf("unreadable: %v", table.Unreadable)
	}
	// As in the shared ccusage file: claude-sonnet-4-5 1,000,000, gpt-5 272,000, none for glm-4.7.
	for name, want := range map[string]TokenLimit{"claude-sonnet-4-5": 1_000_000, "claude-haiku-4-5": 200_000, "gpt-5": 272_000, "glm-4.7": 0} {
		if m, _ := Default().Match(name); m.Entry.MaxInputTokens != want {
			t.Errorf("embedded %s: max input %d, want %d", name, m.Entry.MaxInputTokens, want)
		}
	}
}

// A price file is read only when it is a regular file of a bounded size:
// /dev/zero or a FIFO given as --prices would never end.
func TestLoadBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, maxPriceFile+1); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, os.DevNull, t.TempDir()} {
		if _, err := Load(path); err == nil {
			t.Errorf("%s loaded", path)
		}
	}
}

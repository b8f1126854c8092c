package report

import (
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestByToolRecordedReal pins the carry cost per tool that report gives
// without a policy, on two of the shared logs read for their sizes alone,
// and checks it against the same figure under a policy that shapes
// nothing, where the results' tokens are counted with the tokenizer and
// calibrated: two measures of one thing, from the recorded prompts and
// from the texts. One rate for every byte cannot tell a dense Bash output
// from a sparse file, so a tool's figure may be a quarter off (Bash in
// will-it-rain is 23% under); their sum is within 10% (edgerunner 5.5%
// over).
func TestByToolRecordedReal(t *testing.T) {
	if testing.Short() {
		t.Skip("reads two shared logs twice, with and without their texts (-short)")
	}
	for _, tt := range []struct {
		pattern string
		rate    float64 // tokens a byte, fitted
		pairs   int
		top     string
		carry   float64 // the top tool's, recorded-only
	}{
		{"claude-code_will-it-rain_*.jsonl", 0.398, 34, "Read", 1.259973},
		{"codex_edgerunner_*.jsonl", 0.295, 48, "exec", 10.123303},
	} {
		path := sharedtest.Transcripts(t, tt.pattern)[0]
		sizes, err := transcript.ReadFile(path, transcript.Options{SizesOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		recorded := buildWith(t, sizes, pricing.Default(), "none")
		rate := recorded.Tokens.Carry
		if want := "carry costs from the recorded prompts: " + fmtRate(tt.rate) + " tokens a byte of result, the median of " +
			human.Plural(tt.pairs, "call pair") + " whose prompt grew by the results between them (no policy: tokens not counted)"; rate != want {
			t.Errorf("%s: note %q, want %q", tt.pattern, rate, want)
		}
		top := recorded.ByTool[0]
		if top.Tool != tt.top || top.CarryCostUSD == nil || math.Abs(*top.CarryCostUSD-tt.carry) > 5e-7 || top.Tokens != nil {
			t.Errorf("%s: top tool %+v, want %s at $%.6f", tt.pattern, top, tt.top, tt.carry)
		}
		var sum float64
		for _, tc := range recorded.ByTool {
			sum += *tc.CarryCostUSD
		}
		if sum >= *recorded.Totals.CostUSD {
			t.Errorf("%s: tools carry $%.6f of a $%.6f session", tt.pattern, sum, *recorded.Totals.CostUSD)
		}
		full, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		pol, _ := policy.Preset("harness-rs-0.0.50")
		pol.Ceiling, pol.Dedupe.Enabled = 1<<40, false
		counted := buildPolicy(t, full, pricing.Default(), pol)
		if counted.Totals.Actions["keep"] != counted.Totals.ToolResults {
			t.Fatalf("%s: the policy shaped results: %v", tt.pattern, counted.Totals.Actions)
		}
		want := map[string]float64{}
		var wantSum float64
		for _, tc := range counted.ByTool {
			want[tc.Tool] = *tc.CarryCostUSD
			wantSum += *tc.CarryCostUSD
		}
		for _, tc := range recorded.ByTool {
			if w := want[tc.Tool]; w > 0.10 && math.Abs(*tc.CarryCostUSD-w) > 0.25*w {
				t.Errorf("%s: %s carries $%.6f from the recorded prompts, $%.6f counted", tt.pattern, tc.Tool, *tc.CarryCostUSD, w)
			}
		}
		if math.Abs(sum-wantSum) > 0.10*wantSum {
			t.Errorf("%s: the tools carry $%.6f from the recorded prompts, $%.6f counted", tt.pattern, sum, wantSum)
		}
	}
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', 3, 64) }

// TestCostsMoreReal: under harness-rs-0.0.40, raze's four cut results
// save -1,891, 1,808, 371 and -628 tokens (two cuts quoted again are
// longer than the outputs), carried by 14, 13, 11 and 11 calls: 5,797
// more prompt tokens in all, and the text report says the policy adds.
func TestCostsMoreReal(t *testing.T) {
	path := sharedtest.Transcripts(t, "codex_raze_*.jsonl")[0]
	full, err := transcript.ReadFile(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := policy.Preset("harness-rs-0.0.40")
	s := buildPolicy(t, full, pricing.Default(), pol)
	if got, want := *s.Totals.PromptTokensAfter-s.Totals.PromptTokens, int64(-1_891*14+1_808*13+371*11-628*11); got != -want {
		t.Errorf("prompt tokens grew by %d; want %d", got, -want)
	}
	w, err := NewWriter("text", io.Discard, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Render(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := "  cost: $0.821934 → $0.824148 under harness-rs-0.0.40 (+$0.002214, +0.3%); prompt tokens 1,257,132 → 1,262,929\n"; !strings.Contains(string(out), want) {
		t.Errorf("want %q in:\n%s", want, out)
	}
}

package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// TestLargestCountsSum sums many calls that each record the largest count
// the reader accepts, 10^12, of every kind: the totals are exact, far from
// overflowing int64.
func TestLargestCountsSum(t *testing.T) {
	const n = 20_000
	var log strings.Builder
	for i := range n {
		fmt.Fprintf(&log, `{"type":"assistant","uuid":"a%d","sessionId":"s","version":"2.1.126","requestId":"r%d","message":{"id":"m%d","model":"claude-sonnet-4-5","stop_reason":"end_turn",`+
			`"usage":{"input_tokens":1000000000000,"cache_creation_input_tokens":1000000000000,"cache_read_input_tokens":1000000000000,"output_tokens":1000000000000},"content":[]}}`+"\n", i, i, i)
	}
	s, err := transcript.Read(strings.NewReader(log.String()), "largest.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := buildWith(t, s, pricing.Default(), "none")
	const each = 1_000_000_000_000
	want := Tokens{Input: n * each, CacheCreation: n * each, CacheRead: n * each, Output: n * each}
	if diff := cmp.Diff(want, r.Totals.Recorded); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if r.Totals.PromptTokens != 3*n*each || r.Totals.PromptTokensAfter != nil {
		t.Errorf("prompt tokens %d, after %v, want %d and none without a policy", r.Totals.PromptTokens, r.Totals.PromptTokensAfter, int64(3*n*each))
	}
	if r.Totals.Warnings != 0 {
		t.Errorf("%d warnings", r.Totals.Warnings)
	}
	// Each kind: 200,000 tokens at claude-sonnet-4-5's base rate, the rest
	// at its rate above 200K.
	above := float64(each - 200_000)
	call := 200_000*3e-6 + above*6e-6 + // input
		200_000*3.75e-6 + above*7.5e-6 + // cache writes
		200_000*3e-7 + above*6e-7 + // cache reads
		200_000*1.5e-5 + above*2.25e-5 // output
	if r.Totals.CostUSD == nil || math.Abs(*r.Totals.CostUSD-n*call) > 1e-9*n*call {
		t.Errorf("cost %v, want %.2f", r.Totals.CostUSD, n*call)
	}
}

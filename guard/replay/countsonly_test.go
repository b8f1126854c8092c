package replay

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/slowtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestCountsOnly: a replay for the figures alone, as sweeps run, gives
// every result the outcome, reason, locator, sizes and tokens of a full
// replay, and the same totals, under every preset at every sweep ceiling;
// it keeps no replacement text, and its reasons leave out how a size
// compares with its ceiling.
func TestCountsOnly(t *testing.T) {
	slowtest.OptIn(t, "replays 1,500 results under every preset at every sweep ceiling, two ways")
	var buf bytes.Buffer
	if err := corpus.WriteMixed(&buf, 7, 1500); err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Read(&buf, "mixed.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type figures struct {
		Outcome                        Outcome
		Reason, Locator                string
		BytesAfter, TokensAfter, Saved int64
	}
	of := func(rp *Run, reason func(string) string) []figures {
		out := make([]figures, len(rp.Results))
		for i, r := range rp.Results {
			out[i] = figures{r.Outcome, reason(r.Reason), r.Locator, r.BytesAfter, r.TokensAfter, r.Saved}
		}
		return out
	}
	same := func(s string) string { return s }
	for _, pol := range policy.Presets() {
		if pol.Inert() {
			continue
		}
		for _, ceiling := range SweepCeilings(pol) {
			q := pol.Clone()
			q.SetCeiling(ceiling)
			full, err := p.Replay(q, Options{})
			if err != nil {
				t.Fatal(err)
			}
			counts, err := p.Replay(q, Options{CountsOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(of(full, countedReason), of(counts, same)); d != "" {
				t.Errorf("%s at %d (-full +counts only):\n%s", pol.Name, ceiling, d)
			}
			if d := cmp.Diff(full.Totals, counts.Totals); d != "" {
				t.Errorf("%s at %d totals (-full +counts only):\n%s", pol.Name, ceiling, d)
			}
			acted := 0
			for _, r := range counts.Results {
				if strings.Contains(r.Reason, " ≤ ") || strings.Contains(r.Reason, " > ") {
					t.Fatalf("%s at %d: result %d has a size reason, %q", pol.Name, ceiling, r.Index, r.Reason)
				}
				if r.Outcome != Kept && r.Outcome != Excluded {
					acted++
					if r.Text != "" {
						t.Fatalf("%s at %d: result %d keeps its replacement", pol.Name, ceiling, r.Index)
					}
				}
			}
			if ceiling == 2048 && acted == 0 {
				t.Errorf("%s at %d shapes nothing", pol.Name, ceiling)
			}
		}
	}
}

// countedReason is a full replay's reason as a counts-only replay writes
// it: without the size comparison it starts with, if any.
func countedReason(full string) string {
	head, rest, cut := strings.Cut(full, "; ")
	if !strings.Contains(head, " ≤ ") && !strings.Contains(head, " > ") {
		return full
	}
	if !cut {
		return ""
	}
	return "; " + rest
}

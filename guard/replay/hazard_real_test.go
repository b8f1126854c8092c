package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestHazardsRealLogs replays every real log under every preset and checks
// what each hazard claims: its string lies in the result's original text
// where it says, outside the result's Seen ranges and in no part of
// what the model saw of it, and in the output of a later call. SPILLWAY_HAZARDS=FILE writes every hazard
// to FILE, to judge them by hand.
func TestHazardsRealLogs(t *testing.T) {
	c, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	var dump strings.Builder
	for _, path := range sharedtest.Transcripts(t, "*.jsonl") {
		s, err := transcript.ReadFile(path, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Prepare(context.Background(), s, tokens.NewCache(c), pricing.Default(), nil)
		if err != nil {
			t.Fatal(err)
		}
		pols := policy.Presets()
		for _, kib := range []int64{8, 4} {
			q, _ := policy.Preset("harness-rs-0.0.40")
			q.Name = fmt.Sprintf("%s@%dKiB", q.Name, kib)
			q.SetCeiling(kib * 1024)
			pols = append(pols, q)
		}
		for _, pol := range pols {
			rp, err := p.Replay(pol, Options{})
			if err != nil {
				t.Fatal(err)
			}
			h := &hazardPass{rp: rp, ix: p.hazardIndex()}
			for i := range rp.Results {
				r := &rp.Results[i]
				if pol.Style == harness.HarnessRS && (r.Outcome == Truncated || r.Outcome == Spilled && strings.HasSuffix(r.Locator, ".txt")) {
					// The head the hazard pass works out is Seen's.
					seen := rp.Seen(r)
					h.visible(i, "\x00", occ{int32(i), 0, 0}, true)
					if got := h.ends[i].head; len(seen) == 0 || int64(got) != seen[0].To {
						t.Errorf("%s %s result %d: head %d, Seen %v", path, pol.Name, i, got, seen)
					}
				}
				z := r.Hazard
				if z == nil {
					continue
				}
				context := ""
				if z.MatchFrom >= 0 {
					context = excerpt(r.Source.Text, z.MatchFrom, z.MatchTo)
				}
				fmt.Fprintf(&dump, "%s\t%s\tr%d\t%s\t%s\t%s\tcall %d -> %d\t%s\t%q\t%q\t%q\t%q\n", filepath.Base(path), pol.Name, i,
					r.Source.Tool, r.Outcome, z.Kind, r.Arrival, z.CallIndex, z.From, z.Match, z.Evidence, context, excerpt(string(r.Source.Input), 0, 0))
				if z.MatchFrom < 0 {
					continue
				}
				if z.Kind == UsedHidden && r.Outcome != Suppressed && strings.Contains(r.Text, z.Match) {
					t.Errorf("%s %s result %d: %q is in what the model saw", path, pol.Name, i, z.Match)
				}
				for _, sr := range rp.Seen(r) {
					if int64(z.MatchFrom) >= sr.From && int64(z.MatchTo) <= sr.To {
						t.Errorf("%s %s result %d: %q lies in the seen range %v", path, pol.Name, i, z.Match, sr)
					}
				}
				if z.CallIndex <= r.Arrival {
					t.Errorf("%s %s result %d: evidence at call %d, before the result came back after call %d", path, pol.Name, i, z.CallIndex, r.Arrival)
				}
			}
		}
	}
	if out := os.Getenv("SPILLWAY_HAZARDS"); out != "" {
		if err := os.WriteFile(out, []byte(dump.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

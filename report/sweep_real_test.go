package report

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// totalsWriter sums what report gives of each session (its sub-agents'
// included) as a sweep point: Render runs on the pipeline's goroutines,
// Write in order.
type totalsWriter struct{ sum replay.SweepPoint }

func (w *totalsWriter) Begin() error { return nil }
func (w *totalsWriter) Render(s *Session) ([]byte, error) {
	t, h := &s.Totals, s.Totals.Hazards
	return json.Marshal(replay.SweepPoint{Acted: t.Actions["truncate"] + t.Actions["spill"], Suppressed: t.Actions["suppress"],
		Saved: t.SavedTokens, Hazards: replay.SweepHazards{UsedHidden: h.UsedHidden, Retrievable: h.Retrievable, SuppressedUnseen: h.SuppressedUnseen, Stale: h.Stale}})
}
func (w *totalsWriter) Write(data []byte) error {
	var pt replay.SweepPoint
	if err := json.Unmarshal(data, &pt); err != nil {
		return err
	}
	w.sum.Acted += pt.Acted
	w.sum.Suppressed += pt.Suppressed
	w.sum.Saved += pt.Saved
	w.sum.Hazards.Add(pt.Hazards)
	return nil
}
func (w *totalsWriter) End() error { return nil }

// TestSweepMatchesReport: every row of sweep is what report gives at that
// ceiling, over every shared log: the results shaped, the repeats
// suppressed, the tokens saved and every hazard count. A sweep replays for
// the figures alone and lets the replacement texts go; the hazards it
// finds must not depend on that.
func TestSweepMatchesReport(t *testing.T) {
	if testing.Short() {
		t.Skip("replays every shared log at ten ceilings under two policies (-short)")
	}
	logs := filepath.Join(sharedtest.Dir(t), "transcripts")
	for _, name := range []string{"harness-rs-0.0.50", "codex"} {
		pol, err := policy.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
		sw, _, err := Sweep([]string{logs}, nil, opt, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for _, pt := range sw.Points {
			t.Run(fmt.Sprintf("%s@%d", name, pt.Ceiling), func(t *testing.T) {
				at := opt
				at.Policy = pol.Clone()
				at.Policy.SetCeiling(pt.Ceiling)
				var w totalsWriter
				if _, err := Generate([]string{logs}, nil, at, &w, io.Discard); err != nil {
					t.Fatal(err)
				}
				got := w.sum
				got.Ceiling, got.Own, got.Cost, got.CostAfter = pt.Ceiling, pt.Own, pt.Cost, pt.CostAfter
				if diff := cmp.Diff(pt, got); diff != "" {
					t.Errorf("sweep (-) against report (+):\n%s", diff)
				}
			})
		}
	}
}

package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/transcript"
)

// TestSweep checks each sweep point against a replay of its own at that
// ceiling, and that the CSV and JSON forms carry the same figures.
func TestSweep(t *testing.T) {
	demo := filepath.Join("..", "testdata", "demo.jsonl")
	counter, err := tokens.Get(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, preset := range []string{"claude-code", "harness-rs-0.0.40", "agentscope"} {
		t.Run(preset, func(t *testing.T) {
			policy, err := guard.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Prices: pricing.Default(), Policy: policy, Counter: app.Tokenizer(tokens.O200kBase)}
			doc, p, err := Sweep([]string{demo}, nil, opt, io.Discard)
			if err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v", err, p)
			}
			s, err := transcript.ReadFile(demo, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prep, err := guard.Prepare(context.Background(), s, tokens.NewCache(counter), pricing.Default(), nil)
			if err != nil {
				t.Fatal(err)
			}
			ceilings := guard.SweepCeilings(policy)
			if len(doc.Points) != len(ceilings) || doc.Sessions != 1 || doc.Results != len(s.Results()) {
				t.Fatalf("%d points for %d ceilings, %d sessions, %d results", len(doc.Points), len(ceilings), doc.Sessions, doc.Results)
			}
			for i, c := range ceilings {
				q := policy.Clone()
				q.SetCeiling(c)
				rp, err := prep.Replay(q, guard.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := guard.SweepPoint{Ceiling: c, Own: c == policy.Ceiling,
					Acted:      rp.Totals.Actions[guard.Truncate] + rp.Totals.Actions[guard.Spilled],
					Suppressed: rp.Totals.Actions[guard.Suppress], Saved: rp.Totals.SavedPerCall,
					Cost: rp.Totals.Cost, CostAfter: rp.Totals.CostAfter}
				if diff := cmp.Diff(want, doc.Points[i]); diff != "" {
					t.Errorf("ceiling %d (-replay +sweep):\n%s", c, diff)
				}
			}

			var csvOut, jsonOut bytes.Buffer
			if err := doc.Write(&csvOut, "csv"); err != nil {
				t.Fatal(err)
			}
			if err := doc.Write(&jsonOut, "json"); err != nil {
				t.Fatal(err)
			}
			var back SweepDoc
			if err := json.Unmarshal(jsonOut.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&csvOut).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(back.Points)+1 {
				t.Fatalf("%d CSV rows for %d points", len(rows), len(back.Points))
			}
			for i, pt := range back.Points {
				want := []string{preset, strconv.FormatInt(pt.Ceiling, 10), string(policy.Unit), strconv.FormatBool(pt.Own),
					strconv.Itoa(pt.Acted), strconv.Itoa(pt.Suppressed), strconv.FormatInt(pt.Saved, 10),
					strconv.FormatFloat(*pt.Cost, 'f', 9, 64), strconv.FormatFloat(*pt.CostAfter, 'f', 9, 64)}
				if diff := cmp.Diff(want, rows[i+1]); diff != "" {
					t.Errorf("CSV row %d (-JSON +CSV):\n%s", i+1, diff)
				}
			}
		})
	}
}

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

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
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
			pol, err := policy.Preset(preset)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}
			doc, p, err := Sweep([]string{demo}, nil, opt, io.Discard)
			if err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v", err, p)
			}
			s, err := transcript.ReadFile(demo, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			prep, err := replay.Prepare(context.Background(), s, tokens.NewCache(counter), pricing.Default(), nil)
			if err != nil {
				t.Fatal(err)
			}
			ceilings := replay.SweepCeilings(pol)
			if len(doc.Points) != len(ceilings) || doc.Sessions != 1 || doc.Results != len(s.Results()) {
				t.Fatalf("%d points for %d ceilings, %d sessions, %d results", len(doc.Points), len(ceilings), doc.Sessions, doc.Results)
			}
			for i, c := range ceilings {
				q := pol.Clone()
				q.SetCeiling(c)
				rp, err := prep.Replay(q, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want := replay.SweepPoint{Ceiling: c, Own: c == pol.Ceiling,
					Acted:      rp.Totals.Actions[replay.Truncated] + rp.Totals.Actions[replay.Spilled],
					Suppressed: rp.Totals.Actions[replay.Suppressed], Saved: rp.Totals.SavedPerCall,
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
				want := []string{preset, strconv.FormatInt(pt.Ceiling, 10), string(pol.Unit), strconv.FormatBool(pt.Own),
					strconv.Itoa(pt.Acted), strconv.Itoa(pt.Suppressed), strconv.FormatInt(pt.Saved, 10),
					strconv.FormatFloat(*pt.Cost, 'f', 9, 64), strconv.FormatFloat(*pt.CostAfter, 'f', 9, 64)}
				if diff := cmp.Diff(want, rows[i+1]); diff != "" {
					t.Errorf("CSV row %d (-JSON +CSV):\n%s", i+1, diff)
				}
			}
		})
	}
}

// TestSweepCSVFormula: a policy named like a formula (a policy file's name
// is free text) is quoted; the numbers beside it are not.
func TestSweepCSVFormula(t *testing.T) {
	cost, after := 0.25, -0.125
	doc := SweepDoc{Policy: policy.Policy{Name: "=1+1", Unit: policy.JSONBytes},
		Points: []replay.SweepPoint{{Ceiling: 2048, Acted: 1, Saved: -3, Cost: &cost, CostAfter: &after}}}
	var buf bytes.Buffer
	if err := doc.Write(&buf, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"'=1+1", "2048", "json_bytes", "false", "1", "0", "-3", "0.250000000", "-0.125000000"}
	if diff := cmp.Diff(want, rows[1]); diff != "" {
		t.Errorf("row (-want +got):\n%s", diff)
	}
}

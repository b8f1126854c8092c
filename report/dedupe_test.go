package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
)

// TestSweepDedupe pins the repeat-suppression sweep over session a of
// sweepSessions (two identical Reads of /a, 6,000 bytes, 1,500 tokens,
// and no write between) under harness-rs-0.0.40: its repeat, suppressed
// from the 2nd call, saves 1,500 − 54 = 1,446 tokens of call 2's uncached
// input, $0.004338; from the 3rd call on it is the 2nd, so nothing is
// suppressed. At a 4,096 ceiling each Read is cut, saving 408 tokens at
// every call that carries it: 3 × 408 = 1,224 ($0.003672) without
// suppression; with it from the 2nd call, 2 × 408 + 1,446 = 2,262
// ($0.006786), and the repeat of a cut Read is suppressed_unseen.
func TestSweepDedupe(t *testing.T) {
	a, _ := sweepSessions(t)
	type row struct {
		from, suppressed int
		saved            int64
		usd              float64
		unseen           int
	}
	tests := []struct {
		ceiling int64
		rows    []row
		text    []string
	}{
		{24576, []row{{0, 0, 0, 0, 0}, {2, 1, 1446, 0.004338, 0}, {3, 0, 0, 0, 0}, {4, 0, 0, 0, 0}}, []string{
			"off 0 0 $0.028350 $0.000000 0 0 0 0",
			"from the 2nd identical call 1 1,446 $0.024012 $0.004338 0 0 0 0",
			"from the 3rd identical call 0 0 $0.028350 $0.000000 0 0 0 0",
			"from the 4th identical call 0 0 $0.028350 $0.000000 0 0 0 0",
		}},
		{4096, []row{{0, 0, 1224, 0.003672, 0}, {2, 1, 2262, 0.006786, 1}, {3, 0, 1224, 0.003672, 0}, {4, 0, 1224, 0.003672, 0}}, []string{
			"off 0 1,224 $0.024678 $0.003672 0 0 0 0",
			"from the 2nd identical call 1 2,262 $0.021564 $0.006786 0 0 1 0",
			"from the 3rd identical call 0 1,224 $0.024678 $0.003672 0 0 0 0",
			"from the 4th identical call 0 1,224 $0.024678 $0.003672 0 0 0 0",
		}},
	}
	for _, tt := range tests {
		pol, _ := policy.Preset("harness-rs-0.0.40")
		pol.SetCeiling(tt.ceiling)
		opt := Options{Prices: pricing.Default(), Policy: pol,
			Counter: func() (replay.TokenCounter, error) { return quarterCounter{}, nil }}
		doc, p, err := SweepDedupe([]string{a}, nil, opt, io.Discard)
		if err != nil || p != (Problems{}) {
			t.Fatalf("%v %+v", err, p)
		}
		var got []row
		for _, pt := range doc.Points {
			got = append(got, row{pt.From, pt.Suppressed, pt.Saved, *pt.Cost - *pt.CostAfter, pt.Hazards.SuppressedUnseen})
		}
		if diff := cmp.Diff(tt.rows, got, cmp.AllowUnexported(row{}), cmp.Comparer(func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 })); diff != "" {
			t.Errorf("ceiling %d (-want +got):\n%s", tt.ceiling, diff)
		}
		var text, js bytes.Buffer
		doc.Write(&text, "text", 0)
		lines := strings.Split(text.String(), "\n")
		var rows []string
		for _, l := range lines[2:6] {
			rows = append(rows, strings.Join(strings.Fields(l), " "))
		}
		if diff := cmp.Diff(tt.text, rows); diff != "" {
			t.Errorf("ceiling %d text (-want +got):\n%s", tt.ceiling, diff)
		}
		doc.Write(&js, "json", 0)
		var back struct {
			Schema string `json:"schema"`
			Points []struct {
				From    int `json:"from"`
				Hazards struct {
					SuppressedUnseen int `json:"suppressed_unseen"`
				} `json:"hazards"`
			} `json:"points"`
		}
		if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Schema != "spillway.sweep-dedupe/v1" || len(back.Points) != 4 ||
			back.Points[1].From != 2 || back.Points[1].Hazards.SuppressedUnseen != tt.rows[1].unseen {
			t.Errorf("JSON %v: %s", err, js.String())
		}
	}
}

package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
)

// TestKnobsKey: the chart's points are kept by every knob but the ceiling;
// per-tool ceilings, which scale with it, count by their ratio to it.
func TestKnobsKey(t *testing.T) {
	base, err := policy.Preset("claude-code") // Bash 30,000 and Grep 20,000 under 50,000
	if err != nil {
		t.Fatal(err)
	}
	at := func(ceilings ...int64) policy.Policy {
		p := base.Clone()
		for _, c := range ceilings {
			p.SetCeiling(c)
		}
		return p
	}
	noDedupe := base.Clone()
	noDedupe.SetDedupe(0)
	if noDedupe.Dedupe.Enabled == base.Dedupe.Enabled {
		noDedupe.SetDedupe(2)
	}
	tests := []struct {
		name string
		a, b policy.Policy
		same bool
	}{
		{"another ceiling", base, at(12_500), true},
		// 50,512 then doubled and halved: Bash 30,000 → 30,307 → 60,614 → 30,307.
		{"an odd ceiling doubled and halved", at(50_512), at(50_512, 101_024, 50_512), true},
		{"an odd ceiling and another", at(50_512), at(25_512), true},
		// Twenty + and - from 50,512: Bash drifts from 30,000 × 50,512/50,000.
		{"after twenty keys", at(50_512), at(101_024, 50_512, 25_256, 50_512, 101_024, 50_512, 25_256, 50_512, 101_024, 50_512,
			25_256, 50_512, 101_024, 50_512, 25_256, 50_512, 101_024, 50_512, 25_256, 50_512), true},
		{"no ceiling", base, at(0), false},
		{"dedupe switched", base, noDedupe, false},
		{"a tool excluded", base, func() policy.Policy { p := base.Clone(); p.Exclude = append(p.Exclude, "Bash"); return p }(), false},
	}
	for _, tt := range tests {
		if got := knobsKey(tt.a) == knobsKey(tt.b); got != tt.same {
			t.Errorf("%s: same key %v, want %v", tt.name, got, tt.same)
		}
	}
}

// TestChartScale: bars are the share of the session's cost saved, a full
// bar the whole cost, so that a curve whose best point saves 0.2% draws
// its lowest bars where one scaled to its best point drew full ones.
func TestChartScale(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	tests := []struct {
		name  string
		after []float64 // the cost after, of $1, at each sweep ceiling in turn
		want  string
	}{
		// 0.2% of $1 at best: every bar is ▁, 7 × 0.002 being below 1.
		{"best 0.2%", []float64{0.998, 0.998, 0.9985, 0.999, 0.999, 0.9995, 1, 1, 1},
			"cost saved (█ 100%, best 0.2%) 2K▁ 4K▁ 8K▁ 16K▁ ▸24K▁ 32K▁ 64K▁ 128K▁ 256K▁"},
		// 65% is level ⌊7 × 0.65⌋ = 4, ▅; 100% is █; 30% is ⌊2.1⌋ = 2, ▃.
		{"best 100%", []float64{0, 0.35, 0.7, 1, 1, 1, 1, 1, 1},
			"cost saved (█ 100%, best 100.0%) 2K█ 4K▅ 8K▃ 16K▁ ▸24K▁ 32K▁ 64K▁ 128K▁ 256K▁"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
			ceilings := replay.SweepCeilings(m.policy)
			if len(ceilings) != len(tt.after) {
				t.Fatalf("%d sweep ceilings %v, the test has %d", len(ceilings), ceilings, len(tt.after))
			}
			for i, c := range ceilings {
				m.sess.chart.put(knobsKey(m.policy), replay.SweepPoint{Ceiling: c, Cost: cost(1), CostAfter: cost(tt.after[i])})
			}
			var chart string
			for _, l := range strings.Split(ansi.Strip(screen(m)), "\n") {
				if strings.HasPrefix(l, "cost saved") {
					chart = l
				}
			}
			if !strings.HasPrefix(chart, tt.want) {
				t.Errorf("chart line\n%q\nwant it to start\n%q", chart, tt.want)
			}
		})
	}
}

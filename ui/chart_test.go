package ui

import (
	"testing"

	"github.com/spillway-dev/spillway/guard/policy"
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

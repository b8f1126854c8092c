package ui

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/themes"
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

// TestChartScale: bars are scaled to the best point, which the head
// names, so that a curve whose best point saves 6.3% draws it full and
// 11% and nothing draw apart; the point at the ceiling applied prints
// its figure; every ceiling is labelled in K of 1,024.
func TestChartScale(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	tests := []struct {
		name  string
		after []float64 // the cost after, of $1, at each sweep ceiling in turn
		width int
		want  string
	}{
		// 6.3% is █; 3.15% is half of it, ⌈4⌉ = ▄; 0.1% the least, ▁;
		// nothing saved, no bar.
		{"best 6.3%", []float64{0.937, 0.9685, 0.999, 1, 1, 1, 1}, 200,
			"cost saved by ceiling, █ = best 6.3% at 3K (K = 1,024 JSON bytes): 3K█ 6K▄ 12K▁ ▸24K  0.0% 48K  96K  192K"},
		// 11% beside nothing: █ beside no bar.
		{"11% and none", []float64{1, 0.89, 1, 1, 1, 1, 1}, 200,
			"cost saved by ceiling, █ = best 11.0% at 6K (K = 1,024 JSON bytes): 3K  6K█ 12K  ▸24K  0.0% 48K  96K  192K"},
		// At 80 columns the head is cut short before any point is.
		{"narrow", []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1, 1}, 80,
			"saved, █ = 50.0%: 3K█ 6K▇ 12K▅ ▸24K▄ 20.0% 48K▂ 96K  192K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, demoData(t), "harness-rs-0.0.40", tt.width, 40, "dark")
			ceilings := replay.ChartCeilings(m.policy, 0)
			if len(ceilings) != len(tt.after) {
				t.Fatalf("%d sweep ceilings %v, the test has %d", len(ceilings), ceilings, len(tt.after))
			}
			for i, c := range ceilings {
				m.sess.chart.put(knobsKey(m.policy), replay.SweepPoint{Ceiling: c, Cost: cost(1), CostAfter: cost(tt.after[i])})
			}
			var chart string
			for _, l := range strings.Split(ansi.Strip(screen(m)), "\n") {
				if strings.Contains(l, "saved") && strings.Contains(l, "2K") {
					chart = l
				}
			}
			if !strings.HasPrefix(chart, tt.want) {
				t.Errorf("chart line\n%q\nwant it to start\n%q", chart, tt.want)
			}
		})
	}
}

// TestCeilingLabel: one style for every ceiling, in K and M of 1,024.
func TestCeilingLabel(t *testing.T) {
	for n, want := range map[int64]string{512: "512", 1024: "1K", 1536: "1.5K", 24 << 10: "24K", 50_000: "48.8K",
		100_000: "97.7K", 256 << 10: "256K", 1 << 20: "1M", 1536 << 10: "1.5M"} {
		if got := ceilingLabel(n); got != want {
			t.Errorf("ceilingLabel(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestChartGolden pins the chart at a small best point, 6.3% of the cost,
// at 80×24 and 120×40: the best bar full, the marker's own figure printed.
func TestChartGolden(t *testing.T) {
	cost := func(v float64) *float64 { return &v }
	after := []float64{0.937, 0.9685, 0.98, 0.99, 0.999, 1, 1, 1, 1}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("small-best-%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newModel(t, demoData(t), "harness-rs-0.0.40", size[0], size[1], "dark")
			for i, c := range replay.ChartCeilings(m.policy, 0) {
				m.sess.chart.put(knobsKey(m.policy), replay.SweepPoint{Ceiling: c, Cost: cost(1), CostAfter: cost(after[i])})
			}
			out := screen(m)
			checkSize(t, out, size[0], size[1])
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestSubagentSessionGolden pins a session with a sub-agent, opened from
// the list, at 120×40 and 80×24, its sub-agent's call selected.
func TestSubagentSessionGolden(t *testing.T) {
	dir := subagentFixture(t)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newListModel(t, []string{dir}, "harness-rs-0.0.40", size[0], size[1], time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC))
			for filepath.Base(m.fleet.list.current()) != "main.jsonl" {
				press(t, m, "j")
			}
			press(t, m, "enter", "G")
			out := screen(m)
			checkSize(t, out, size[0], size[1])
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// TestChartByClaudeVersion: under --preset claude-code, the chart of a
// session an older Claude Code recorded completes, every point in, and
// marks the ceiling its version applied, which the policy line states:
// 100,000 UTF-16 units for 2.1.22 (it asked again forever for a point at
// 50,000, which the version's rules turned into 100,000), none for 1.0.17.
func TestChartByClaudeVersion(t *testing.T) {
	for _, tt := range []struct {
		version, ceiling, marker string
	}{
		{"2.1.22", "ceiling 100,000 UTF-16 units", "▸97.7K"},
		{"1.0.17", "no ceiling", ""},
	} {
		t.Run(tt.version, func(t *testing.T) {
			data := bytes.ReplaceAll(demoData(t), []byte(`"version":"2.1.126"`), []byte(`"version":"`+tt.version+`"`))
			m := newModel(t, data, "claude-code", 160, 40, "dark")
			chart := ansi.Strip(m.sess.chartLine())
			if strings.Contains(chart, "·") && !strings.Contains(chart, "  ·  ") || strings.Contains(chart, "computing") {
				t.Errorf("the chart is not complete: %q", chart)
			}
			if tt.marker != "" && !strings.Contains(chart, tt.marker) || tt.marker == "" && strings.Contains(chart, "▸") {
				t.Errorf("chart %q, want the marker %q", chart, tt.marker)
			}
			if out := ansi.Strip(screen(m)); !strings.Contains(out, "policy claude-code · "+tt.ceiling) {
				t.Errorf("the policy line does not say %q:\n%s", tt.ceiling, out)
			}
		})
	}
}

// TestLongerReplacementShowsAdded: under harness-rs-0.0.40 at 64 KiB the
// demo's 70,611-byte Read, cut and quoted again, is 73,198 bytes: 30,182
// tokens become 31,245, 947 calibrated, which every call that carries it
// pays for. The calls show it added, not taken out, and the session's
// cost after takes it in (sweep's 65,536 row: $0.380681).
func TestLongerReplacementShowsAdded(t *testing.T) {
	pol, err := policy.Preset("harness-rs-0.0.40")
	if err != nil {
		t.Fatal(err)
	}
	pol.SetCeiling(65536)
	m := New(Options{Source: Source{Name: "demo.jsonl", Data: demoData(t)}, Policy: pol, Prices: pricing.Default(), Counter: counter})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 160, Height: 40})
	out := ansi.Strip(screen(m))
	if !strings.Contains(out, "cost $0.3983 → $0.3807 −4.4%") {
		t.Errorf("header: want cost $0.3983 → $0.3807 −4.4%%:\n%s", out)
	}
	// The 3 calls that carry the Read before a suppressed repeat saves
	// more than it adds, and the result's own line.
	if n := strings.Count(out, "+947"); n != 4 || !strings.Contains(out, "· +947 tok calibrated ·") {
		t.Errorf("%d figures show +947; want 3 calls' and the result's:\n%s", n, out)
	}
	// Call 1 writes the 947 to the cache; call 2 reads them from it.
	press(t, m, "j")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "+947 tokens: 947 more new, 0 more cached") {
		t.Errorf("call 1's detail does not say what the policy adds:\n%s", out)
	}
	press(t, m, "j")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "+947 tokens: 0 more new, 947 more cached") {
		t.Errorf("call 2's detail does not say what the policy adds:\n%s", out)
	}
	// Call 4 carries the Read's growth and a repeat suppressed: each part
	// by its sign.
	press(t, m, "j", "j")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "−1,130 tokens: 2,077 fewer new, 947 more cached") {
		t.Errorf("call 4's detail:\n%s", out)
	}
	// The chart: 64K marked, saving less than 128K, no point adding.
	if chart := ansi.Strip(m.sess.chartLine()); !strings.Contains(chart, "▸64K▁ 4.4% 128K▁") {
		t.Errorf("chart %q", chart)
	}
}

// TestChartAdds: a ceiling whose replacements are longer than the results
// they replace draws − where a saving draws a bar, says so in the head,
// and, marked, says what it adds rather than a negative saving; with no
// ceiling saving, the head says none does.
func TestChartAdds(t *testing.T) {
	pal, err := themes.Pick("dark", true, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &Context{Styles: themes.New(pal)}
	pol, _ := policy.Preset("agentscope")
	point := func(ceiling int64, before, after float64) replay.SweepPoint {
		return replay.SweepPoint{Ceiling: ceiling, Cost: &before, CostAfter: &after}
	}
	pol.SetCeiling(2048)
	mixed := []replay.SweepPoint{point(2048, 10, 10.13), point(4096, 10, 9.8), point(8192, 10, 9.6), point(16384, 10, 10)}
	want := "cost saved by ceiling, █ = best 4.0% at 8K (− adds, K = 1,024 UTF-16 units): ▸2K− adds 1.3% 4K▄ 8K█ 16K "
	if got := ansi.Strip(drawChart(ctx, pol, mixed, 0, 0, 200)); !strings.HasPrefix(got, want) {
		t.Errorf("mixed:\n got %q\nwant %q…", got, want)
	}
	pol.SetCeiling(4096)
	none := []replay.SweepPoint{point(2048, 10, 10.13), point(4096, 10, 10)}
	want = "cost saved by ceiling: none at any (− adds, K = 1,024 UTF-16 units): 2K− ▸4K  0.0%"
	if got := ansi.Strip(drawChart(ctx, pol, none, 0, 0, 200)); !strings.HasPrefix(got, want) {
		t.Errorf("none:\n got %q\nwant %q…", got, want)
	}
}

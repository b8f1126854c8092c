package ui

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// BenchmarkFleetRetune presses + or - on a list of 50 generated Claude
// Code sessions of 200 calls each, read and counted once: ns/op is the
// time from the key to every session replayed under the new ceiling and
// the totals drawn (the chart's points come after).
func BenchmarkFleetRetune(b *testing.B) {
	dir := b.TempDir()
	for seed := uint64(0); seed < 50; seed++ {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", seed)))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriter(f)
		if _, err := corpus.WriteSession(w, seed, 200, 4096); err != nil {
			b.Fatal(err)
		}
		w.Flush()
		f.Close()
	}
	pol, _ := policy.Preset(policy.DefaultPreset)
	opt := Options{Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark", SessionsName: "bench", NoFollow: true}
	opt.Sessions = indexSessions(b, []string{dir}, app.Options{Prices: opt.Prices, Counter: counter}, "")
	m := New(opt)
	leaveAtEnd(b, m)
	l := newLoop(m)
	l.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	l.run(m.Init())
	settled := func() bool { return m.fleet.scanned && len(m.fleet.pending) == 0 && !m.fleet.sweeping }
	l.until(settled)
	if len(m.fleet.list.rows) != 50 {
		b.Fatalf("%d rows", len(m.fleet.list.rows))
	}
	i := 0
	for b.Loop() {
		m.policy.SetCeiling(m.policy.Ceiling + 512) // a ceiling not used before each time
		l.send(keyMsg(retuneKeys[i%len(retuneKeys)]))
		i++
		l.until(func() bool { return len(m.fleet.pending) == 0 })
		_ = m.View()
	}
	b.StopTimer()
	l.until(settled)
}

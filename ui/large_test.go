//go:build unix

package ui

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestLargeSessionTimes opens the session SPILLWAY_LARGE_SESSION names
// (go run ./internal/corpus/gencorpus -single FILE writes a 1 GB one) as
// the program does, and logs when the first frame, all rows, the replay
// and the whole savings chart were on screen, and the spill files written.
// Run it under /usr/bin/time -v for the peak memory:
//
//	go test -c ./ui && SPILLWAY_LARGE_SESSION=FILE /usr/bin/time -v ./ui.test -test.run LargeSession -test.v
func TestLargeSessionTimes(t *testing.T) {
	path := os.Getenv("SPILLWAY_LARGE_SESSION")
	if path == "" {
		t.Skip("SPILLWAY_LARGE_SESSION names no session to time")
	}
	pause := chartPause
	chartPause = 150 * time.Millisecond // as the program runs
	defer func() { chartPause = pause }()
	pol, err := policy.Preset(policy.DefaultPreset)
	if err != nil {
		t.Fatal(err)
	}
	spills := t.TempDir()
	start := time.Now()
	m := New(Options{Source: Source{Name: path, Path: path}, Policy: pol, Prices: pricing.Default(), Counter: counter,
		SpillRoot: spills, Theme: "dark"})
	leaveAtEnd(t, m)
	l := newLoop(m)
	l.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	l.run(m.Init())
	var first, rows, replayed time.Duration
	var rowsCPU, replayedCPU time.Duration
	l.until(func() bool {
		_ = m.View()
		now := time.Since(start)
		if first == 0 && (m.sess.progress.phase != "" || m.sess.session != nil) {
			first = now // the first frame that shows the session coming
		}
		if rows == 0 && m.sess.session != nil && !m.sess.partial { // all rows, not the head's
			rows, rowsCPU = now, cpuTime(t)
		}
		if replayed == 0 && m.sess.replay != nil {
			replayed, replayedCPU = now, cpuTime(t)
		}
		_, missing := m.sess.chart.curve(m.policy)
		return m.sess.replay != nil && missing == 0 && !m.sess.chart.busy
	})
	finished := time.Since(start)
	if out := os.Getenv("SPILLWAY_LARGE_HEAP"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	var files, bytes int64
	filepath.WalkDir(spills, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			info, _ := d.Info()
			files++
			bytes += info.Size()
		}
		return nil
	})
	t.Logf("%d calls, %d results: first frame %.2f s, all rows %.2f s, replayed %.2f s, chart done %.2f s; %d spill files, %d bytes",
		len(m.sess.session.Calls), len(m.sess.replay.Results), first.Seconds(), rows.Seconds(), replayed.Seconds(), finished.Seconds(), files, bytes)
	t.Logf("processor time (user + system, all threads) by all rows %.2f s, replayed %.2f s, chart done %.2f s",
		rowsCPU.Seconds(), replayedCPU.Seconds(), cpuTime(t).Seconds())
}

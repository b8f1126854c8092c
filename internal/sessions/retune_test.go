package sessions

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
)

// TestRetuneFolder times re-tuning the session list of the folder named by
// SPILLWAY_RETUNE_DIR (skipped without it) as the inspector does: scanned
// through the index, replayed once under the default policy (every
// session read in full), then under each new ceiling and tuning, each
// timed from the key to the last session's savings in, with the peak RSS
// after it, then the chart's sweep where the tuning changed what its points
// depend on. SPILLWAY_RETUNE_CPU names the files for a CPU profile of
// each step, with the step's number after a dot. It measures; the figures are pinned
// elsewhere.
func TestRetuneFolder(t *testing.T) {
	dir := os.Getenv("SPILLWAY_RETUNE_DIR")
	if dir == "" {
		t.Skip("SPILLWAY_RETUNE_DIR names no folder to re-tune")
	}
	budget := app.DefaultBudget()
	overrideFromEnv(t, "SPILLWAY_RETUNE_HOLD", &budget.Whole)
	overrideFromEnv(t, "SPILLWAY_RETUNE_KEEP", &textsKeptBytes)
	prices := pricing.Default()
	ix, err := index.Open(index.Options{Prices: prices, NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	src := NewIndexed([]string{dir}, app.Env{}, app.Options{Prices: prices, Counter: counter}, ix)
	src.Budget = &budget
	ctx := context.Background()
	start := time.Now()
	paths := listPaths(t, src)
	t.Logf("scan: %d sessions in %.1f s; %s", len(paths), time.Since(start).Seconds(), memoryUse())
	pol, _ := policy.Preset(policy.DefaultPreset)
	steps := []struct {
		name string
		tune func(p *policy.Policy)
		// chart: the chart's points at the other ceilings are to be swept
		// again, as the list does when more than the ceiling changed.
		chart bool
	}{
		{"first replay", func(*policy.Policy) {}, true},
		{"ceiling up", func(p *policy.Policy) { p.SetCeiling(p.Ceiling * 2) }, false},
		{"ceiling down", func(p *policy.Policy) { p.SetCeiling(p.Ceiling / 4) }, false},
		{"ceiling down", func(p *policy.Policy) { p.SetCeiling(p.Ceiling / 2) }, false},
		{"dedupe on", func(p *policy.Policy) { _ = p.SetDedupe(2) }, true},
		{"spill off", func(p *policy.Policy) { _ = p.SetSpill(false) }, true},
	}
	for k, st := range steps {
		stop := func() {}
		if out := os.Getenv("SPILLWAY_RETUNE_CPU"); out != "" {
			f, err := os.Create(fmt.Sprintf("%s.%d", out, k))
			if err != nil {
				t.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				t.Fatal(err)
			}
			stop = func() { pprof.StopCPUProfile(); f.Close() }
		}
		st.tune(&pol)
		readBefore := int64(0)
		if src.texts != nil {
			readBefore = src.texts.ReadBytes()
		}
		start, used := time.Now(), cpuTime(t)
		var saved int64
		var dollars float64
		n, failed := 0, 0
		err := src.Replay(ctx, pol, paths, func(s Savings) {
			n++
			if s.Err != nil {
				failed++
				return
			}
			saved += s.Point.Saved
			if s.Point.CostAfter != nil {
				dollars += *s.Point.CostAfter
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		reread := int64(0)
		if src.texts != nil {
			reread = src.texts.ReadBytes() - readBefore
		}
		t.Logf("%-12s ceiling %6d: %.2f s (%.1f s CPU), %d sessions (%d failed), %d tokens saved, $%.6f after; %.1f MB of lines read again; %s",
			st.name, pol.Ceiling, time.Since(start).Seconds(), (cpuTime(t) - used).Seconds(), n, failed, saved, dollars, float64(reread)/1e6, memoryUse())
		if !st.chart {
			stop()
			continue
		}
		var others []int64
		for _, c := range replay.SweepCeilings(pol) {
			if c != pol.Ceiling {
				others = append(others, c)
			}
		}
		readBefore = src.texts.ReadBytes()
		start, used = time.Now(), cpuTime(t)
		swept := sweptDollars(t, src, pol, paths, others)
		stop()
		t.Logf("%-12s chart at %d more ceilings: %.2f s (%.1f s CPU), $%.6f after summed over them; %.1f MB of lines read again; %s",
			"", len(others), time.Since(start).Seconds(), (cpuTime(t) - used).Seconds(), swept, float64(src.texts.ReadBytes()-readBefore)/1e6, memoryUse())
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("held after a collection: %.0f MB of heap", float64(ms.HeapAlloc)/1e6)
	if out := os.Getenv("SPILLWAY_RETUNE_HEAP"); out != "" {
		f, err := os.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
	}
	runtime.KeepAlive(src)
}

// listPaths lists src's sessions and returns their paths.
func listPaths(t *testing.T, src *Service) []string {
	rows, _, err := src.Scan(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	paths := make([]string, len(rows))
	for i, r := range rows {
		paths[i] = r.Path
	}
	return paths
}

// sweptDollars sweeps paths at ceilings and sums the costs after of
// every point.
func sweptDollars(t *testing.T, src *Service, pol policy.Policy, paths []string, ceilings []int64) float64 {
	var swept float64
	err := src.Sweep(context.Background(), pol, paths, ceilings, func(s Savings) {
		for _, pt := range s.Points {
			if pt.CostAfter != nil {
				swept += *pt.CostAfter
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return swept
}

// memoryUse is this process's peak and current RSS, as the kernel counts it.
func memoryUse() string {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return "RSS unknown"
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && (k == "VmHWM" || k == "VmRSS") {
			out = append(out, k+" "+strings.Join(strings.Fields(v), " "))
		}
	}
	return strings.Join(out, ", ")
}

// overrideFromEnv sets *bound to the byte count the environment variable
// name holds, if any, until the test ends.
func overrideFromEnv(t *testing.T, name string, bound *int64) {
	v := os.Getenv(name)
	if v == "" {
		return
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	old := *bound
	t.Cleanup(func() { *bound = old })
	*bound = n
}

// TestReopenFolder times reopening the session list of the folder named
// by SPILLWAY_RETUNE_DIR (skipped without it) as the inspector does, with
// the index's cache: listed, replayed and swept once under the default
// policy, the cache written; then listed again by a new index over the
// same cache, each step timed to its last session's figures. It measures;
// the figures are pinned elsewhere (TestReopenedFromMemo).
func TestReopenFolder(t *testing.T) {
	dir := os.Getenv("SPILLWAY_RETUNE_DIR")
	if dir == "" {
		t.Skip("SPILLWAY_RETUNE_DIR names no folder to reopen")
	}
	prices := pricing.Default()
	cacheDir := t.TempDir()
	pol, _ := policy.Preset(policy.DefaultPreset)
	ctx := context.Background()
	var ceilings []int64
	for _, c := range replay.SweepCeilings(pol) {
		if c != pol.Ceiling {
			ceilings = append(ceilings, c)
		}
	}
	for _, run := range []string{"cold", "reopened"} {
		ix, err := index.Open(index.Options{Prices: prices, CacheDir: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		src := NewIndexed([]string{dir}, app.Env{}, app.Options{Prices: prices, Counter: counter}, ix)
		start := time.Now()
		paths := listPaths(t, src)
		listed := time.Since(start)
		var dollars float64
		err = src.Replay(ctx, pol, paths, func(s Savings) {
			if s.Point.CostAfter != nil {
				dollars += *s.Point.CostAfter
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		replayed := time.Since(start)
		swept := sweptDollars(t, src, pol, paths, ceilings)
		t.Logf("%-8s %d sessions: rows %.2f s, totals %.2f s ($%.6f after), chart %.2f s ($%.6f summed); %s",
			run, len(paths), listed.Seconds(), replayed.Seconds(), dollars, time.Since(start).Seconds(), swept, memoryUse())
		if err := ix.Flush(); err != nil {
			t.Fatal(err)
		}
	}
}

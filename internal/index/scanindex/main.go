// Command scanindex runs the session index over paths (or the sessions
// discovery finds) and prints every session's totals as JSON, for
// benchmarks and for comparing with other tools. The figures go to
// stdout; how many sessions, warnings and the time to stderr.
//
//	scanindex [-no-cache] [-cache-dir DIR] [-q] [-cpuprofile F] [-memprofile F] [PATH...]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/memory"
)

type session struct {
	Path      string       `json:"path"`
	SessionID string       `json:"session_id"`
	Project   string       `json:"project"`
	Subagents int          `json:"subagents"`
	APICalls  int          `json:"api_calls"`
	Recorded  index.Tokens `json:"recorded"`
	CostUSD   *float64     `json:"cost_usd"`
	Largest   int          `json:"largest_result"`
}

func main() {
	noCache := flag.Bool("no-cache", false, "neither read nor write the index cache")
	cacheDir := flag.String("cache-dir", "", "folder of the index cache (default $SPILLWAY_CACHE_DIR, else the user cache folder)")
	quiet := flag.Bool("q", false, "print only the total")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the scan to this file")
	memProfile := flag.String("memprofile", "", "write a profile of what the scan allocated to this file")
	flag.Parse()
	memory.SetBaseline(400) // as spillway's batch commands do
	// GOGC 400 lets the heap grow to five times what is live; past this
	// the collector runs as often as it must instead.
	memory.Limit(150 << 20)
	if *profile != "" {
		f, err := os.Create(*profile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "scanindex:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	// Opened first: the cache is decoded while the sessions are found.
	ix, err := index.Open(index.Options{NoCache: *noCache, CacheDir: *cacheDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, "scanindex:", err)
		os.Exit(1)
	}
	inputs, err := app.Resolve(flag.Args(), app.SystemEnv())
	if err != nil {
		fmt.Fprintln(os.Stderr, "scanindex:", err)
		os.Exit(1)
	}
	entries, warnings, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scanindex:", err)
		os.Exit(1)
	}
	took := time.Since(start)
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			fmt.Fprintln(os.Stderr, "scanindex:", err)
			os.Exit(1)
		}
	}
	var out struct {
		Sessions []session `json:"sessions"`
		Total    session   `json:"total"`
	}
	out.Sessions = []session{}
	var cost float64
	for _, e := range entries {
		if !*quiet {
			out.Sessions = append(out.Sessions, session{Path: e.Path, SessionID: e.SessionID, Project: e.Project, Subagents: len(e.Subagents),
				APICalls: e.APICalls - e.CopiedCalls, Recorded: e.Recorded, CostUSD: e.CostUSD, Largest: e.LargestResult})
		}
		t := &out.Total
		t.Subagents += len(e.Subagents)
		t.APICalls += e.APICalls - e.CopiedCalls
		t.Recorded.Input += e.Recorded.Input
		t.Recorded.CacheCreation += e.Recorded.CacheCreation
		t.Recorded.CacheRead += e.Recorded.CacheRead
		t.Recorded.Output += e.Recorded.Output
		if e.CostUSD != nil {
			cost += *e.CostUSD
		}
		t.Largest = max(t.Largest, e.LargestResult)
	}
	out.Total.CostUSD = &cost
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "scanindex:", err)
		os.Exit(1)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "scanindex:", w.String())
	}
	fmt.Fprintf(os.Stderr, "scanindex: %d sessions, %d warnings, %.3f s\n", len(entries), len(warnings), took.Seconds())
}

// writeHeapProfile writes what was allocated since the start, by where.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

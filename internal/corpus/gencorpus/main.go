// Command gencorpus writes the deterministic benchmark corpora and prints
// their totals, for timing spillway against other tools: with -fleet,
// 2,000 Claude Code and Codex sessions (about 2 GB, sub-agents, resumed
// sessions and compactions) laid out as on disk; else one folder of
// Claude Code sessions.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/spillway-dev/spillway/internal/corpus"
)

func main() {
	dir := flag.String("dir", "", "folder to write the sessions into")
	fleet := flag.Bool("fleet", false, "write the many-sessions corpus: claude/projects/... and codex/sessions/... under -dir")
	totals := flag.String("totals", "", "with -fleet, write every session's totals to this JSON file")
	shape := corpus.Default
	fs := corpus.DefaultFleet
	flag.IntVar(&shape.Sessions, "sessions", shape.Sessions, "sessions to write")
	flag.IntVar(&shape.Calls, "calls", shape.Calls, "API calls per session")
	flag.IntVar(&shape.ResultBytes, "result-bytes", shape.ResultBytes, "bytes per tool result")
	flag.IntVar(&fs.Claude, "claude", fs.Claude, "with -fleet, Claude Code sessions")
	flag.IntVar(&fs.Codex, "codex", fs.Codex, "with -fleet, Codex sessions")
	flag.IntVar(&fs.MeanCalls, "mean-calls", fs.MeanCalls, "with -fleet, mean API calls per session")
	single := flag.String("single", "", "write one mixed session of about -single-bytes to this file instead")
	singleBytes := flag.Int64("single-bytes", 1<<30, "size of the -single session")
	flag.Parse()
	if *single != "" {
		writeSingle(*single, *singleBytes)
		return
	}
	if *dir == "" {
		log.Fatal("gencorpus: -dir is required")
	}
	if *fleet {
		fs.ResultBytes = shape.ResultBytes
		tot, err := corpus.WriteFleet(*dir, fs)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("sessions %d files %d bytes %d calls %d input %d cache_creation %d cache_read %d output %d\n",
			len(tot.Sessions), tot.Files, tot.Bytes, tot.All.Calls, tot.All.Input, tot.All.CacheCreation, tot.All.CacheRead, tot.All.Output)
		if *totals != "" {
			b, err := json.MarshalIndent(tot.Sessions, "", " ")
			if err == nil {
				err = os.WriteFile(*totals, b, 0o644)
			}
			if err != nil {
				log.Fatal(err)
			}
		}
		return
	}
	tot, err := corpus.WriteDir(*dir, shape)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("calls %d input %d cache_creation %d cache_read %d output %d\n",
		tot.Calls, tot.Input, tot.CacheCreation, tot.CacheRead, tot.Output)
}

// writeSingle writes one very large session, as a long-running agent
// leaves, for timing the inspector.
func writeSingle(path string, size int64) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, err := corpus.WriteMixedSize(w, 1, size)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("results %d\n", n)
}

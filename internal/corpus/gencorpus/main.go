// Command gencorpus writes the deterministic benchmark corpus of Claude Code
// sessions and prints its totals, for timing spillway against other tools.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/spillway-dev/spillway/internal/corpus"
)

func main() {
	dir := flag.String("dir", "", "folder to write the sessions into")
	shape := corpus.Default
	flag.IntVar(&shape.Sessions, "sessions", shape.Sessions, "sessions to write")
	flag.IntVar(&shape.Calls, "calls", shape.Calls, "API calls per session")
	flag.IntVar(&shape.ResultBytes, "result-bytes", shape.ResultBytes, "bytes per tool result")
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

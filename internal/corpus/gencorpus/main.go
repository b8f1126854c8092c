// Command gencorpus writes the deterministic benchmark corpus of Claude Code
// sessions and prints its totals, for timing spillway against other tools.
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/spillway-dev/spillway/internal/corpus"
)

func main() {
	dir := flag.String("dir", "", "folder to write the sessions into")
	shape := corpus.Default
	flag.IntVar(&shape.Sessions, "sessions", shape.Sessions, "sessions to write")
	flag.IntVar(&shape.Calls, "calls", shape.Calls, "API calls per session")
	flag.IntVar(&shape.ResultBytes, "result-bytes", shape.ResultBytes, "bytes per tool result")
	flag.Parse()
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

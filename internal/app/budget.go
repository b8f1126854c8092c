package app

import (
	"sync"

	"github.com/spillway-dev/spillway/internal/memory"
)

// Budget bounds how much of the sessions it reads a caller of the pipeline
// holds between uses (the session list, between replays under one policy
// and the next): held sessions replay at once, the others are read again.
type Budget struct {
	// Whole is the logs, in bytes, whose sessions are held read in full,
	// their results' texts and all; the pipeline's own first read holds
	// as much (holdBytes).
	Whole int64
	// Lean is the logs, in bytes, whose sessions are held without their
	// results' texts, read again from their files when a replay needs
	// them (FileTexts, Input.TextsOnDemand).
	Lean int64
}

// DefaultBudget is the budget on this machine: holdBytes in full, and
// without their texts leanBound of its memory. The memory is looked up
// the first time a budget is asked for, not at every start.
func DefaultBudget() Budget { return Budget{Whole: holdBytes, Lean: machineLean()} }

var machineLean = sync.OnceValue(func() int64 { return leanBound(memory.Physical()) })

// leanBound is the logs whose sessions are held without their texts on a
// machine of memory bytes (0: not known). Such a session holds about half
// its logs' size (853 MB of heap for the 2 GB fleet's 1.9 GB), and the
// process's peak is about 1.5 times its heap: half the memory in logs
// keeps a list within two fifths of it, however many sessions there are;
// 64 GiB at most, 8 GiB where the memory is not known.
func leanBound(memory int64) int64 {
	if memory <= 0 {
		return 8 << 30
	}
	return min(memory/2, 64<<30)
}

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
	// them (FileTexts, Input.TextsOnDemand). The session list holds all
	// its sessions so or none.
	Lean int64
}

// DefaultBudget is the budget on this machine: holdBytes in full, and
// without their texts leanBound of its memory. The memory is looked up
// the first time a budget is asked for, not at every start.
func DefaultBudget() Budget { return Budget{Whole: holdBytes, Lean: machineLean()} }

var machineLean = sync.OnceValue(func() int64 { return leanBound(memory.Physical()) })

// leanBound is the logs whose sessions are held without their texts on a
// machine of memory bytes (0: not known), all of them or none
// (sessions.Service). Such a session holds about half its logs' size, and
// the process's peak was 0.55 times the logs (1.05 GB for the 2 GB fleet's
// 1.9 GB); not held, each is read twice, computing ahead what the keys
// show, and that fleet's list peaked at 0.2 GB, where a key whose figures
// were not computed ahead (a preset, a typed ceiling) waits for every
// session to be read again: 12.9 s to its totals against 9 s there. Up to
// 1 GiB of logs (a peak near 0.55 GB) and a quarter of the memory; where
// the memory is not known, what is held in full.
func leanBound(memory int64) int64 {
	if memory <= 0 {
		return holdBytes
	}
	return min(memory/4, 1<<30)
}

package ui

import (
	"math"
	"runtime/debug"
)

// gcHeadroom is how much the heap may grow, past what it holds, before the
// garbage is collected, once a session is large. The inspector holds the
// whole session for as long as it runs, most of it the results' text; at
// Go's default pace the heap grew to twice that before each collection,
// and a 1 GB log took 2.8 GB. The text is strings, which the collector
// marks without scanning, so collecting more often costs little.
const gcHeadroom = 64 << 20

// paceGC collects garbage often enough that a session of size bytes takes
// about gcHeadroom more than it holds, never less often than it would
// anyway (GOGC, or a pace set before, stands when it is lower).
func paceGC(size int64) {
	if size <= 0 {
		return
	}
	percent := int(max(10, min(100, 100*gcHeadroom/size)))
	if percent >= 100 {
		return
	}
	if prev := debug.SetGCPercent(percent); prev < percent { // GOGC lower, or off
		debug.SetGCPercent(prev)
	}
}

// limitMemory bounds the heap of a session whose texts are read on demand
// to a little under its file's size, rather than pacing the collector by
// that size: such a session holds a fraction of its file, and reading its
// texts again allocates fast, so a pace set for holding the whole file
// would collect many times a second for nothing. A limit set before
// (GOMEMLIMIT) stands.
func limitMemory(size int64) {
	if size <= 0 {
		return
	}
	if prev := debug.SetMemoryLimit(-1); prev != math.MaxInt64 && prev != memoryLimited {
		return
	}
	memoryLimited = size - size/8
	debug.SetMemoryLimit(memoryLimited)
}

// memoryLimited is the limit limitMemory set, 0 when none is in force.
var memoryLimited int64

// unlimitMemory lifts the limit limitMemory set, once the session it was
// set for is closed.
func unlimitMemory() {
	if memoryLimited != 0 && debug.SetMemoryLimit(-1) == memoryLimited {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	memoryLimited = 0
}

package ui

import (
	"runtime/debug"
	"testing"
)

// TestPaceGC: the pace a session's size sets, and never a slower one than
// was set before.
func TestPaceGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	for _, c := range []struct {
		before int
		size   int64
		want   int
	}{
		{100, 1 << 20, 100},  // small: Go's default stands
		{100, 64 << 20, 100}, // 64 MiB: a heap twice the session is 64 MiB more
		{100, 256 << 20, 25}, // 100 × 64 MiB / 256 MiB
		{100, 1 << 30, 10},   // the floor
		{5, 256 << 20, 5},    // GOGC=5 stands
		{-1, 1 << 30, -1},    // GOGC=off stands
		{100, 0, 100},        // size unknown
	} {
		debug.SetGCPercent(c.before)
		paceGC(c.size)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GC percent %d, size %d: %d, want %d", c.before, c.size, got, c.want)
		}
	}
}

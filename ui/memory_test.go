package ui

import (
	"math"
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

// TestLimitMemory: a session read on demand limits the heap to seven
// eighths of its file, unless a limit was set before.
func TestLimitMemory(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	for _, c := range []struct {
		before, size, want int64
	}{
		{math.MaxInt64, 1 << 30, 7 << 27},
		{math.MaxInt64, 0, math.MaxInt64}, // size unknown
		{512 << 20, 1 << 30, 512 << 20},   // GOMEMLIMIT stands
	} {
		debug.SetMemoryLimit(c.before)
		limitMemory(c.size)
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("limit %d, size %d: %d, want %d", c.before, c.size, got, c.want)
		}
		unlimitMemory() // the session closed: the limit found stands again
		if got := debug.SetMemoryLimit(-1); got != c.before {
			t.Errorf("limit %d, size %d, closed: %d, want %d", c.before, c.size, got, c.before)
		}
	}
}

// TestOnDemandBound: the logs held without their texts are half the
// machine's memory, within 64 GiB, and 8 GiB where it is not known.
func TestOnDemandBound(t *testing.T) {
	for _, tt := range []struct{ memory, want int64 }{
		{0, 8 << 30},
		{-1, 8 << 30},
		{8 << 30, 4 << 30},
		{24 << 30, 12 << 30},
		{128 << 30, 64 << 30},
		{1 << 40, 64 << 30},
	} {
		if got := onDemandBound(tt.memory); got != tt.want {
			t.Errorf("onDemandBound(%d) = %d, want %d", tt.memory, got, tt.want)
		}
	}
}

// TestWithinLimit: a control group's limit stands for the machine's
// memory when it is lower, or the memory is not known.
func TestWithinLimit(t *testing.T) {
	for _, tt := range []struct{ total, limit, want int64 }{
		{16 << 30, 0, 16 << 30},
		{16 << 30, 4 << 30, 4 << 30},
		{16 << 30, 32 << 30, 16 << 30},
		{0, 4 << 30, 4 << 30},
		{0, 0, 0},
	} {
		if got := withinLimit(tt.total, tt.limit); got != tt.want {
			t.Errorf("withinLimit(%d, %d) = %d, want %d", tt.total, tt.limit, got, tt.want)
		}
	}
}

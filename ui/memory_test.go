package ui

import "testing"

// TestSessionMemory: a session held whole is collected at a pace that
// leaves it about 64 MiB of headroom, between 10 and Go's 100; one read
// on demand is limited to 7/8 of its file on top of what the program
// already held.
func TestSessionMemory(t *testing.T) {
	for _, tc := range []struct {
		size int64
		pace int
	}{{0, 0}, {32 << 20, 0}, {64 << 20, 0}, {128 << 20, 50}, {256 << 20, 25}, {1 << 30, 10}} {
		if got := sessionPace(tc.size); got != tc.pace {
			t.Errorf("sessionPace(%d MiB) = %d, want %d", tc.size>>20, got, tc.pace)
		}
	}
	// 300 MiB held, a 1 GiB log: 300 + 896 MiB.
	if got, want := sessionLimit(300<<20, 1<<30), int64(1196)<<20; got != want {
		t.Errorf("sessionLimit = %d MiB, want %d MiB", got>>20, want>>20)
	}
}

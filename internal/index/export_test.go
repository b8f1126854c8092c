package index

import (
	"testing"
	"time"
)

// SetLiveWindow makes files written in the last d live (live.go) until
// the test ends: 0 has every file read whole, each into an arena, as a
// user's older sessions are.
func SetLiveWindow(t testing.TB, d time.Duration) {
	was := liveWindow
	liveWindow = d
	t.Cleanup(func() { liveWindow = was })
}

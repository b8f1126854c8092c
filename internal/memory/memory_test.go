package memory

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// reset forgets every demand and the environment read, and puts back the
// pace and limit the test found.
func reset(t *testing.T) {
	pace, limit := Now()
	clear := func() {
		mu.Lock()
		demands, started, envPace, envLimit, baseline = map[*Demand]bool{}, false, 0, 0, 100
		mu.Unlock()
	}
	clear()
	t.Cleanup(func() {
		clear()
		debug.SetGCPercent(pace)
		debug.SetMemoryLimit(limit)
	})
}

func check(t *testing.T, step string, wantPace int, wantLimit int64) {
	t.Helper()
	if pace, limit := Now(); pace != wantPace || limit != wantLimit {
		t.Errorf("%s: pace %d, limit %d; want %d, %d", step, pace, limit, wantPace, wantLimit)
	}
}

// TestDemandsDoNotUndoEachOther: the lowest pace and limit asked for are
// in force, and giving one back leaves the others'.
func TestDemandsDoNotUndoEachOther(t *testing.T) {
	reset(t)
	const none = math.MaxInt64
	SetBaseline(400)
	check(t, "batch baseline", 400, none)
	batch := Pace(100) // a batch read holding much
	check(t, "batch read", 100, none)
	list := Pace(25) // a list of sessions held
	check(t, "list", 25, none)
	batch.Release() // the read ends: the list's pace stays
	check(t, "batch read done", 25, none)
	list.Set(50)
	check(t, "list paced again", 50, none)
	large := Limit(7 << 27)
	other := Limit(1 << 30)
	check(t, "two limits", 50, 7<<27)
	large.Release()
	check(t, "one limit", 50, 1<<30)
	other.Release()
	list.Release()
	list.Release() // twice: nothing
	check(t, "nothing asked", 400, none)
	var nothing *Demand
	nothing.Release()
	nothing.Set(3)
}

// TestEnvironmentStands: GOGC and GOMEMLIMIT bound what is asked for,
// and GOGC=off is never turned on.
func TestEnvironmentStands(t *testing.T) {
	reset(t)
	t.Setenv("GOGC", "50")
	t.Setenv("GOMEMLIMIT", "512MiB")
	debug.SetGCPercent(50)
	debug.SetMemoryLimit(512 << 20)
	SetBaseline(400)
	check(t, "baseline under GOGC", 50, 512<<20)
	d := Pace(80)
	l := Limit(1 << 30)
	check(t, "above the environment", 50, 512<<20)
	d.Set(10)
	l.Set(256 << 20)
	check(t, "below it", 10, 256<<20)
	d.Release()
	l.Release()
	check(t, "given back", 50, 512<<20)

	reset(t)
	t.Setenv("GOGC", "off")
	debug.SetGCPercent(-1)
	Pace(10)
	check(t, "GOGC=off", -1, 512<<20)
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

// TestLive: a block the program holds through a collection counts in
// Live.
func TestLive(t *testing.T) {
	runtime.GC()
	before := Live()
	held := make([]byte, 64<<20)
	runtime.GC()
	if after := Live(); after-before < 64<<20 {
		t.Errorf("live heap %d before, %d holding 64 MiB", before, after)
	}
	runtime.KeepAlive(held)
}

// TestIdle: a heap that kept 256 MiB of garbage past what is live is given
// back, and once given back it is not collected again for nothing.
func TestIdle(t *testing.T) {
	for _, c := range []struct {
		r    retained
		want bool
	}{
		{retained{kept: 900 << 20, live: 800 << 20}, true},
		{retained{kept: 864 << 20, live: 800 << 20}, false}, // 64 MiB past: kept
		{retained{kept: 865 << 20, live: 800 << 20}, true},
		{retained{kept: 10 << 20, live: 0}, false},
	} {
		if got := returnable(c.r); got != c.want {
			t.Errorf("returnable(%+v) = %v, want %v", c.r, got, c.want)
		}
	}
	reset(t)
	debug.SetGCPercent(-1) // the garbage stays until Idle collects it
	garbage := make([][]byte, 256)
	for i := range garbage {
		garbage[i] = make([]byte, 1<<20)
	}
	runtime.KeepAlive(garbage)
	if !Idle() {
		t.Fatalf("256 MiB of garbage not given back: %+v", heapRetained())
	}
	if r := heapRetained(); returnable(r) {
		t.Errorf("after Idle the heap keeps %d bytes past %d live", r.kept-r.live, r.live)
	}
	if Idle() {
		t.Error("Idle collected again a heap it had given back")
	}
}

// TestTrackFollowsTheLiveHeap: a Track demand's limit is what the heap
// holds live after each collection plus its headroom, falls when the heap
// lets go, and is gone with the demand.
func TestTrackFollowsTheLiveHeap(t *testing.T) {
	reset(t)
	const headroom = 64 << 20
	d := Track(func(live int64) int64 { return headroom })
	// settled waits for the limit set after a collection: within a MiB of
	// the live heap plus headroom, as a collection of this test's own
	// garbage moves the live heap by bytes. A cleanup armed while a
	// collection marks runs after the next: one more is run if it lags.
	settled := func(step string) int64 {
		t.Helper()
		for tries := 0; ; tries++ {
			_, limit := Now()
			want := Live() + headroom
			if limit > want-1<<20 && limit < want+1<<20 {
				return limit
			}
			if tries == 500 {
				t.Fatalf("%s: limit %d, want the live heap %d plus %d", step, limit, Live(), headroom)
			}
			if tries%100 == 99 {
				runtime.GC()
			}
			time.Sleep(time.Millisecond)
		}
	}
	held := make([]byte, 128<<20)
	runtime.GC()
	holding := settled("holding 128 MiB")
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()
	if let := settled("let go"); holding-let < 120<<20 {
		t.Errorf("limit %d after letting 128 MiB go, %d before", let, holding)
	}
	d.Release()
	check(t, "released", 100, math.MaxInt64)
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	check(t, "a collection after", 100, math.MaxInt64)
}

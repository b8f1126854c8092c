// Package memory is the one place that sets the garbage collector's pace
// and the soft memory limit of the program, and that knows how much memory
// the machine has.
//
// A part of the program that holds much for a while (a large session, a
// list of sessions held between replays, a batch read) asks for a pace or
// a limit with Pace or Limit, and gives it back with Release when it lets
// go; one that grows as it works asks with Track for a limit kept at a
// headroom past what the heap holds. The pace in force is the lowest asked
// for, never above the baseline (Go's 100, or what SetBaseline set for the
// batch commands); the limit in force is the lowest asked for. GOGC and
// GOMEMLIMIT, when set, stand: nothing here raises the pace or the limit
// past them. As every request is one of a set, giving one back never
// undoes another's.
package memory

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Demand is one request for a pace or a limit, in force until Release.
type Demand struct {
	limit bool
	value int64
	// past, for a Track demand, is the headroom past the live heap.
	past func(live int64) int64
}

var (
	mu       sync.Mutex
	started  bool
	envPace  int   // GOGC's pace, -1 off; 0 when not set
	envLimit int64 // GOMEMLIMIT's limit; 0 when not set
	baseline = 100
	demands  = map[*Demand]bool{}
)

// start reads what the environment set, once; mu is held.
func start() {
	if started {
		return
	}
	started = true
	if os.Getenv("GOGC") != "" {
		envPace = debug.SetGCPercent(100)
		debug.SetGCPercent(envPace)
		if envPace < 0 {
			envPace = -1
		}
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		envLimit = debug.SetMemoryLimit(-1)
	}
}

// SetBaseline sets the pace when nothing asks for a lower one: the batch
// commands, which hold a few sessions at a time, collect less often
// (400) for speed. GOGC, when set, decides instead.
func SetBaseline(percent int) {
	mu.Lock()
	defer mu.Unlock()
	start()
	baseline = percent
	apply()
}

// Pace asks that garbage be collected when the heap has grown percent
// past what it held, or sooner, until Release.
func Pace(percent int) *Demand { return ask(&Demand{value: int64(percent)}) }

// Limit asks for a soft memory limit of bytes, or lower, until Release.
// bytes of 0 or less asks for nothing.
func Limit(bytes int64) *Demand { return ask(&Demand{limit: true, value: bytes}) }

// Track asks, until Release, for a soft memory limit of what the heap
// holds live after each collection plus headroom(live): none before the
// first. A pace bounds the heap alone, and the runtime keeps the pages it
// frees mapped for reuse; a limit bounds them too. On the 2 GB fleet's
// list a pace alone let the memory in use rise 0.35 GB past the heap's
// goal.
func Track(headroom func(live int64) int64) *Demand {
	d := &Demand{limit: true, past: headroom}
	if live := Live(); live > 0 {
		d.value = live + headroom(live)
	}
	ask(d)
	trackAfterCollection(d)
	return d
}

// trackAfterCollection sets d's limit from the live heap once the next
// collection has run, and again after each, while d is asked for. An
// object nothing refers to, given a cleanup, tells when a collection ran:
// the runtime offers no other call after one.
func trackAfterCollection(d *Demand) {
	runtime.AddCleanup(new(*byte), func(d *Demand) {
		mu.Lock()
		defer mu.Unlock()
		if !demands[d] {
			return
		}
		if live := Live(); live > 0 {
			d.value = live + d.past(live)
			apply()
		}
		trackAfterCollection(d)
	}, d)
}

func ask(d *Demand) *Demand {
	mu.Lock()
	defer mu.Unlock()
	start()
	demands[d] = true
	apply()
	return d
}

// Set changes what d asks for.
func (d *Demand) Set(value int64) {
	if d == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	d.value = value
	if demands[d] {
		apply()
	}
}

// Release gives d back; releasing twice, or a nil Demand, does nothing.
func (d *Demand) Release() {
	if d == nil {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	if demands[d] {
		delete(demands, d)
		apply()
	}
}

// apply sets the pace and the limit the demands make; mu is held.
func apply() {
	pace, limit := int64(baseline), int64(math.MaxInt64)
	if envPace != 0 {
		pace = int64(envPace)
	}
	if envLimit != 0 {
		limit = envLimit
	}
	for d := range demands {
		switch {
		case d.value <= 0:
		case d.limit:
			limit = min(limit, d.value)
		case pace >= 0: // GOGC=off stands
			pace = min(pace, d.value)
		}
	}
	debug.SetGCPercent(int(pace))
	debug.SetMemoryLimit(limit)
}

// Now is the pace and the limit in force, for tests and diagnostics.
func Now() (pace int, limit int64) {
	pace = debug.SetGCPercent(100)
	debug.SetGCPercent(pace)
	return pace, debug.SetMemoryLimit(-1)
}

// Live is the heap the program held at the end of the last collection:
// what a limit asked for on top of the rest must start from, since a
// limit binds the whole program.
func Live() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// Idle gives the system back the heap the collector has freed but the
// runtime still keeps, when that is more than idleSlack past what is live:
// for a front end gone idle after holding much and working more (the
// session list once its chart and what it computes ahead are in), whose
// heap the runtime otherwise keeps as large as the pace let it grow. It
// collects the garbage first, so it takes a moment of the caller's
// goroutine, and returns whether it did.
func Idle() bool {
	if !returnable(heapRetained()) {
		return false
	}
	debug.FreeOSMemory()
	return true
}

// idleSlack is what the heap may keep past what is live before Idle gives
// it back: a collection of the whole heap costs more than it is worth.
const idleSlack = 64 << 20

// retained is the heap the runtime keeps from the system and what of it
// was live at the last collection.
type retained struct{ kept, live uint64 }

func heapRetained() retained {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	var r retained
	for _, s := range sample[:3] {
		if s.Value.Kind() == metrics.KindUint64 {
			r.kept += s.Value.Uint64()
		}
	}
	if s := sample[3]; s.Value.Kind() == metrics.KindUint64 {
		r.live = s.Value.Uint64()
	}
	return r
}

// returnable tells whether r keeps enough past what is live to be given
// back.
func returnable(r retained) bool { return r.kept > r.live+idleSlack }

// withinLimit is total memory, or limit when it is set and lower.
func withinLimit(total, limit int64) int64 {
	if limit > 0 && (total <= 0 || limit < total) {
		return limit
	}
	return total
}

package transcript

import (
	"math/bits"
	"sync"
	"unsafe"
)

// A caller reading many logs for their totals (the session index reads
// thousands, one after another on each core) had each read allocate its
// own tables and arrays: 423 MB over the 1,400 Claude Code sessions of
// the generated fleet, and 9% of the CPU time went to the kernel's page
// faults handing those pages out (most pages touched first by a read,
// then written: two faults apiece). The arrays a read is done with are
// kept for the next read instead: the reader's tables in spares when any
// Read ends, and the session's own arrays in the Arena it was read with,
// when its caller is done with it. The same scan then allocates 139 MB,
// and page faults take 2% of its CPU time.

// spareFrom is the smallest array kept: smaller ones cost less to make
// than to keep. An array of more than spareUpTo bytes is not kept (a
// 1 GB log's calls take tens of MB), nor more than pileUpTo bytes of
// free arrays in any one pile of an Arena.
const (
	spareFrom = 256
	spareUpTo = 4 << 20
	pileUpTo  = 16 << 20
)

// bytesOf is the size of an array of n elements of T.
func bytesOf[T any](n int) int {
	var zero T
	return n * int(unsafe.Sizeof(zero))
}

// class is the class of the arrays that hold at least n elements each,
// and classOf the class an array of capacity n belongs to: arrays of
// class c hold at least 1<<c elements.
func class(n int) int   { return bits.Len(uint(n - 1)) }
func classOf(n int) int { return bits.Len(uint(n)) - 1 }

// spares holds arrays of T by class for any goroutine. An array is
// cleared when it is given back, so that it pins nothing and reads as new.
type spares[T any] struct {
	class [40]sync.Pool // of *[]T
}

// get returns an empty array with room for at least n elements.
func (p *spares[T]) get(n int) []T {
	c := class(n)
	if n < spareFrom || c >= len(p.class) || bytesOf[T](1<<c) > spareUpTo { // never kept: made to measure
		return make([]T, 0, n)
	}
	if a, ok := p.class[c].Get().(*[]T); ok {
		return (*a)[:0]
	}
	return make([]T, 0, 1<<c)
}

// put keeps a for a later get; a must no longer be used.
func (p *spares[T]) put(a []T) {
	c := classOf(cap(a))
	if cap(a) < spareFrom || c >= len(p.class) || bytesOf[T](cap(a)) > spareUpTo {
		return
	}
	a = a[:cap(a)]
	clear(a)
	p.class[c].Put(&a)
}

// The reader's tables, given back when a Read ends.
var (
	spareKeys   spares[uint64]
	spareVals   spares[int32]
	spareClaude spares[claudeCall]
)

// An Arena holds the arrays of the sessions read with it (Options.Arena):
// their calls, and the arrays their tool calls, results, prompts and
// usage are cut from. Reset gives them back for the next sessions read
// with it, which then allocate only what those before did not need. An
// Arena is for one goroutine at a time; the zero value is ready to use.
type Arena struct {
	calls     pile[Call]
	toolCalls pile[ToolCall]
	results   pile[ToolResult]
	prompts   pile[Prompt]
	usages    pile[Usage]
}

// Reset gives back the arrays of every session read with a since its
// last Reset: those sessions, and anything taken from their calls other
// than strings, must no longer be used.
func (a *Arena) Reset() {
	a.calls.reset()
	a.toolCalls.reset()
	a.results.reset()
	a.prompts.reset()
	a.usages.reset()
}

// pile is an Arena's arrays of T: those handed out since the last reset,
// and the free ones by class, of freeBytes bytes in all.
type pile[T any] struct {
	taken     [][]T
	free      [40][][]T
	freeBytes int
}

// get returns an empty array with room for at least n elements.
func (p *pile[T]) get(n int) []T {
	c := class(max(n, 1))
	if c >= len(p.free) || bytesOf[T](1<<c) > spareUpTo { // never kept: made to measure
		return make([]T, 0, n)
	}
	var a []T
	if len(p.free[c]) > 0 {
		last := len(p.free[c]) - 1
		a, p.free[c] = p.free[c][last][:0], p.free[c][:last]
		p.freeBytes -= bytesOf[T](cap(a))
	} else {
		a = make([]T, 0, 1<<c)
	}
	p.taken = append(p.taken, a)
	return a
}

// reset clears every array handed out and makes it free again, as far
// as the bounds allow; the others are left to the collector.
func (p *pile[T]) reset() {
	for i, a := range p.taken {
		p.taken[i] = nil
		size := bytesOf[T](cap(a))
		c := classOf(cap(a))
		if c >= len(p.free) || size > spareUpTo || p.freeBytes+size > pileUpTo {
			continue
		}
		a = a[:cap(a)]
		clear(a)
		p.free[c] = append(p.free[c], a)
		p.freeBytes += size
	}
	p.taken = p.taken[:0]
}

package transcript

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/internal/crash"
)

// Reading ahead: a large Claude Code log read for its sizes alone, or
// without its results' texts, is read on more than one core. The
// caller's goroutine reads the input into batches of lines, some batches
// ahead of the line it feeds the Decoder; other goroutines read those
// batches' lines into records (claudeReader.read, which depends on no
// line before); and the Decoder then applies what was read of each line,
// in order, as Feed would have applied it there (claudeParser.apply). A
// batch no other goroutine has taken when its turn comes is read by the
// caller itself, so that reading ahead never waits for a goroutine the
// machine gives no processor: at worst it reads as Feed does. Reading a
// line's fields was two thirds of the Decoder's time on a 1 GB log.

const (
	// readAheadBytes is the smallest input read ahead: below it the
	// goroutines cost more than they save, and a caller reading many
	// files at once (the index) has its cores busy already.
	readAheadBytes = 64 << 20
	// aheadBatchBytes is about how many bytes of lines a batch holds:
	// few enough that a batch is still in the cache when it is applied.
	aheadBatchBytes = 256 << 10
	// aheadBatches is how many batches are read ahead at most, which
	// bounds what reading ahead holds to that many batches and one.
	aheadBatches = 16
	// aheadKeepBytes bounds the buffer a batch keeps for the next, so
	// that one huge line does not pin its buffer.
	aheadKeepBytes = 4 << 20
	// aheadHoldBytes bounds the bytes of lines read ahead: batches of
	// lines near the line limit (64 MiB) are not read ahead sixteen at a
	// time, but one after another, as Feed reads them.
	aheadHoldBytes = 32 << 20
)

// readsAhead tells whether Read reads an input ahead, from its options.
func readsAhead(opt Options) bool {
	return (opt.SizesOnly || opt.DropResultTexts) && (opt.Format == "" || opt.Format == FormatClaude) &&
		(opt.size >= readAheadBytes && runtime.GOMAXPROCS(0) > 1 || opt.aheadBatch > 0)
}

// aheadBatch is a run of consecutive lines of the input.
type aheadBatch struct {
	data  []byte // the lines' bytes, one after another
	lines []aheadLine
	// first is the number of the batch's first line (1 for the input's).
	first int
	// read is set when the lines were read into records: recs holds
	// what was, and blocks and advisors the slices of recs' records.
	read     bool
	recs     []aheadRec
	blocks   []claudeBlock
	advisors []claudeIteration
	// err is the error reading ended with, after the batch's lines.
	err error
	// taken says who reads the batch's lines: aheadFree while any
	// goroutine may take it, else the one that did. ready receives once
	// a reader other than the caller has read them.
	taken atomic.Int32
	ready chan struct{}
}

const (
	aheadFree   = iota // on offer to the readers
	aheadCaller        // the caller's: being filled, or read by it
	aheadReader        // taken by a reader
)

// aheadLine is a line of a batch: data[start:end], or, where long is
// not 0, a line longer than the limit, of that many bytes, not held.
type aheadLine struct {
	start, end int
	long       int64
	rec        int // the line's entry in recs, -1 for none
}

// aheadRec is what claudeReader.read made of a line.
type aheadRec struct {
	rec claudeRecord
	ok  bool
	// Where rec's blocks and advisors are in the batch's arrays.
	blocks, advisors [2]int
}

// release lets go of what was read of the batch's lines once they are
// applied, and of its bytes when they are many: the queue cycles through
// all its batches, and a batch waiting for its next turn would otherwise
// hold a line of up to the line limit.
func (b *aheadBatch) release() {
	clear(b.recs)
	clear(b.blocks)
	clear(b.advisors)
	b.recs, b.blocks, b.advisors = b.recs[:0], b.blocks[:0], b.advisors[:0]
	if cap(b.data) > aheadKeepBytes {
		b.data = nil
	}
}

func (b *aheadBatch) reset(first int) {
	if cap(b.data) > aheadKeepBytes {
		b.data = nil
	}
	// What was read points into the lines, and may hold the last texts.
	clear(b.recs)
	clear(b.blocks)
	clear(b.advisors)
	b.data, b.lines, b.recs = b.data[:0], b.lines[:0], b.recs[:0]
	b.blocks, b.advisors = b.blocks[:0], b.advisors[:0]
	b.first, b.read, b.err = first, false, nil
	b.taken.Store(aheadCaller)
}

// readLines reads the batch's lines with l, as Feed would read them.
func (b *aheadBatch) readLines(l *claudeReader) {
	b.read = true
	for i := range b.lines {
		ln := &b.lines[i]
		if ln.long != 0 {
			continue
		}
		line := trimLine(b.data[ln.start:ln.end], b.first+i)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ok := l.read(line)
		ln.rec = len(b.recs)
		m := &l.rec.msg
		r := aheadRec{rec: l.rec, ok: ok}
		r.blocks = [2]int{len(b.blocks), len(b.blocks) + len(m.blocks)}
		r.advisors = [2]int{len(b.advisors), len(b.advisors) + len(m.advisors)}
		b.blocks = append(b.blocks, m.blocks...)
		b.advisors = append(b.advisors, m.advisors...)
		b.recs = append(b.recs, r)
	}
	for i := range b.recs {
		r := &b.recs[i]
		r.rec.msg.blocks = b.blocks[r.blocks[0]:r.blocks[1]:r.blocks[1]]
		r.rec.msg.advisors = b.advisors[r.advisors[0]:r.advisors[1]:r.advisors[1]]
	}
}

// aheadSource cuts an input into batches of lines as lines.ReadAll
// does, the same lines, lines over the limit and errors in order, but
// reads into the batches themselves rather than copying each line there.
type aheadSource struct {
	r    io.Reader
	max  int // the longest line held
	min  int // the bytes of whole lines a batch is filled to
	n    int // lines so far
	tail []byte
	// skip counts the bytes so far of a line over the limit, which are
	// read into buf and dropped; 0 when no such line is under way.
	skip  int64
	buf   []byte
	empty int  // reads in a row that returned nothing
	done  bool // the input ended, or reading failed
}

// aheadRead is the least room a batch is read into at a time.
const aheadRead = 64 << 10

func newAheadSource(r io.Reader, maxLine, batchBytes int) *aheadSource {
	return &aheadSource{r: r, max: maxLine, min: batchBytes}
}

func (a *aheadSource) add(b *aheadBatch, ln aheadLine) {
	a.n++
	ln.rec = -1
	b.lines = append(b.lines, ln)
}

// read reads into p, as lines.ReadAll does: it returns the error reading
// ends with, nil at the end of the input, and done.
func (a *aheadSource) read(p []byte) (n int, err error, done bool) {
	n, err = a.r.Read(p)
	switch {
	case n > 0:
		a.empty = 0
	case err == nil:
		// A reader that keeps returning nothing would otherwise spin.
		if a.empty++; a.empty >= 100 {
			return 0, fmt.Errorf("read lines: %w", io.ErrNoProgress), true
		}
	}
	switch {
	case err == io.EOF:
		return n, nil, true
	case err != nil:
		return n, fmt.Errorf("read lines: %w", err), true
	}
	return n, nil, false
}

// fill reads the next lines into b, emptied, until its whole lines take
// a.min bytes or the input ends; b.err is the error it ended with.
func (a *aheadSource) fill(b *aheadBatch) {
	b.reset(a.n + 1)
	b.data = append(b.data, a.tail...) // the line under way, or nothing
	if cap(a.tail) > aheadKeepBytes {
		a.tail = nil // taken: a huge line under way does not pin its buffer
	}
	start := 0 // of the line under way
	for !a.done && start < a.min {
		var n int
		var err error
		var done bool
		from := len(b.data)
		if a.skip > 0 {
			if a.buf == nil {
				a.buf = make([]byte, aheadRead)
			}
			n, err, done = a.read(a.buf)
			if i := bytes.IndexByte(a.buf[:n], '\n'); i >= 0 {
				a.add(b, aheadLine{long: a.skip + int64(i)})
				a.skip = 0
				b.data = append(b.data, a.buf[i+1:n]...)
			} else {
				a.skip += int64(n)
			}
		} else {
			b.data = slices.Grow(b.data, aheadRead)
			n, err, done = a.read(b.data[from:cap(b.data)])
			b.data = b.data[:from+n]
		}
		start = a.cut(b, from, start)
		if done {
			a.done, b.err = true, err
			switch {
			case err != nil: // the line under way is dropped, as lines.ReadAll drops it
			case a.skip > 0:
				a.add(b, aheadLine{long: a.skip})
				a.skip = 0
			case start < len(b.data): // the last line, without a newline
				a.add(b, aheadLine{start: start, end: len(b.data)})
				start = len(b.data)
			}
		}
	}
	a.tail = append(a.tail[:0], b.data[start:]...)
	b.data = b.data[:start]
}

// cut adds the lines that end in b.data[from:] to b, the first of them
// begun at start, and returns where the line under way begins. A line
// over the limit is not held: once longer, it is skipped (a.skip).
func (a *aheadSource) cut(b *aheadBatch, from, start int) int {
	for {
		i := bytes.IndexByte(b.data[from:], '\n')
		if i < 0 {
			break
		}
		end := from + i
		if end-start > a.max {
			a.add(b, aheadLine{long: int64(end - start)})
			b.data = append(b.data[:start], b.data[end+1:]...)
			from = start
			continue
		}
		a.add(b, aheadLine{start: start, end: end})
		start, from = end+1, end+1
	}
	if len(b.data)-start > a.max {
		a.skip = int64(len(b.data) - start)
		b.data = b.data[:start]
	}
	return start
}

// readAhead feeds d the lines of r, none longer than maxLine, reading
// them ahead as described above, in batches of about batchBytes. It
// returns what Feed or Skip returned, or reading's error.
func (d *Decoder) readAhead(r io.Reader, maxLine, batchBytes int) error {
	src := newAheadSource(r, maxLine, batchBytes)
	keep := !d.sizesOnly
	work := make(chan *aheadBatch, aheadBatches)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0)-1, 4)) {
		crash.GoIn(&wg, func() {
			l := claudeReader{keep: keep, measureResults: d.dropResults}
			for b := range work {
				// A batch may come more than once, or after the caller
				// took it: only the taker reads it.
				if b.taken.CompareAndSwap(aheadFree, aheadReader) {
					b.readLines(&l)
					b.ready <- struct{}{}
				}
			}
		})
	}
	defer wg.Wait()
	defer close(work)

	// queue holds the batches read ahead, in order, from head on;
	// claude is set once the Decoder reads lines as Claude Code's, and
	// from then on the batches' lines are read ahead into records.
	var queue [aheadBatches + 1]*aheadBatch
	for i := range queue {
		queue[i] = &aheadBatch{data: make([]byte, 0, batchBytes+batchBytes/2), ready: make(chan struct{}, 1)}
	}
	head, queued := 0, 0
	held := 0 // bytes of the batches queued
	var claude *claudeParser
	// offer offers b to the readers; the caller keeps a batch the
	// readers have no room for.
	offer := func(b *aheadBatch) {
		b.taken.Store(aheadFree)
		select {
		case work <- b:
		default:
			b.taken.CompareAndSwap(aheadFree, aheadCaller)
		}
	}
	for {
		for queued < len(queue) && !src.done && (queued == 0 || held < aheadHoldBytes) {
			b := queue[(head+queued)%len(queue)]
			src.fill(b)
			queued++
			held += len(b.data)
			if claude != nil {
				offer(b)
			}
		}
		if queued == 0 {
			return nil
		}
		b := queue[head]
		head, queued = (head+1)%len(queue), queued-1
		held -= len(b.data)
		if claude != nil {
			if b.taken.CompareAndSwap(aheadFree, aheadCaller) || b.taken.Load() == aheadCaller {
				b.readLines(&claude.reader)
			} else {
				<-b.ready
			}
		}
		err := d.feedBatch(b)
		if err == nil {
			err = b.err
		}
		b.release()
		if err != nil {
			return err
		}
		if p, ok := d.lp.(*claudeParser); ok && claude == nil {
			claude = p
			for i := range queued { // those filled before
				offer(queue[(head+i)%len(queue)])
			}
		}
	}
}

// feedBatch feeds d a batch's lines.
func (d *Decoder) feedBatch(b *aheadBatch) error {
	for i := range b.lines {
		ln := &b.lines[i]
		var err error
		switch {
		case ln.long != 0:
			err = d.Skip(ln.long)
		case ln.rec >= 0:
			err = d.feed(b.data[ln.start:ln.end], &b.recs[ln.rec])
		default:
			err = d.feed(b.data[ln.start:ln.end], nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

package transcript

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/transcript/lines"
)

// Reading ahead: a large Claude Code log read for its sizes alone is read
// on more than one core. One goroutine reads the input and cuts it into
// batches of lines; others read each batch's lines by the fast path
// (claudeReader.read, which depends on no line before), and the caller's
// goroutine feeds the lines to the Decoder in order, each with what was
// read of it, as Feed would have read it there (applyFast). Reading the
// fields of a line was two thirds of the time the Decoder took.

const (
	// readAheadBytes is the smallest input read ahead: below it the
	// goroutines cost more than they save, and a caller reading many
	// files at once (the index) has its cores busy already.
	readAheadBytes = 64 << 20
	// aheadBatchBytes is about how many bytes of lines a batch holds:
	// few enough that a batch is still in the cache when it is applied.
	aheadBatchBytes = 256 << 10
	// aheadBatches is how many batches are in flight at most, which
	// bounds what reading ahead holds to that many batches.
	aheadBatches = 16
	// aheadKeepBytes bounds the buffer a batch keeps for the next, so
	// that one huge line does not pin its buffer.
	aheadKeepBytes = 4 << 20
)

// readsAhead tells whether Read reads an input ahead, from its options.
func readsAhead(opt Options) bool {
	return opt.SizesOnly && (opt.Format == "" || opt.Format == FormatClaude) &&
		(opt.size >= readAheadBytes && runtime.GOMAXPROCS(0) > 1 || opt.aheadBatch > 0)
}

// aheadBatch is a run of consecutive lines of the input.
type aheadBatch struct {
	data  []byte // the lines' bytes, one after another
	lines []aheadLine
	// first is the number of the batch's first line (1 for the input's).
	first int
	// read is set when the lines were read by the fast path: recs holds
	// what was, and blocks and advisors the slices of recs' records.
	read     bool
	recs     []aheadRec
	blocks   []claudeFastBlock
	advisors []claudeAdvisor
	// err is the error reading ended with, after the batch's lines.
	err   error
	ready chan struct{} // receives once the lines were read
}

// aheadLine is a line of a batch: data[start:end], or, where long is
// not 0, a line longer than the limit, of that many bytes, not held.
type aheadLine struct {
	start, end int
	long       int64
	rec        int // the line's entry in recs, -1 for none
}

// aheadRec is what claudeReader.read made of a line.
type aheadRec struct {
	f    claudeFast
	text string
	ok   bool
	// Where f's blocks and advisors are in the batch's arrays.
	blocks, advisors [2]int
}

func (b *aheadBatch) reset(first int) {
	if cap(b.data) > aheadKeepBytes {
		b.data = nil
	}
	b.data, b.lines, b.recs = b.data[:0], b.lines[:0], b.recs[:0]
	clear(b.blocks) // they point into the lines
	clear(b.advisors)
	b.blocks, b.advisors = b.blocks[:0], b.advisors[:0]
	b.first, b.read, b.err = first, false, nil
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
		text, ok := l.read(line)
		ln.rec = len(b.recs)
		r := aheadRec{f: l.fast, text: text, ok: ok}
		r.blocks = [2]int{len(b.blocks), len(b.blocks) + len(l.fast.blocks)}
		r.advisors = [2]int{len(b.advisors), len(b.advisors) + len(l.fast.advisors)}
		b.blocks = append(b.blocks, l.fast.blocks...)
		b.advisors = append(b.advisors, l.fast.advisors...)
		b.recs = append(b.recs, r)
	}
	for i := range b.recs {
		r := &b.recs[i]
		r.f.blocks = b.blocks[r.blocks[0]:r.blocks[1]:r.blocks[1]]
		r.f.advisors = b.advisors[r.advisors[0]:r.advisors[1]:r.advisors[1]]
	}
}

// errStopped ends the reading goroutine once the Decoder failed.
var errStopped = errors.New("reading stopped")

// readAhead feeds d the lines of r, none longer than maxLine, reading
// them ahead as described above. It returns what Feed or Skip returned,
// or reading's error.
func (d *Decoder) readAhead(r io.Reader, maxLine, batchBytes int) error {
	free := make(chan *aheadBatch, aheadBatches)
	for range aheadBatches {
		free <- &aheadBatch{data: make([]byte, 0, batchBytes+batchBytes/2), ready: make(chan struct{}, 1)}
	}
	// order holds the batches in the input's order, work the same ones
	// for the readers; neither ever holds more than every batch.
	order := make(chan *aheadBatch, aheadBatches)
	work := make(chan *aheadBatch, aheadBatches)
	stop := make(chan struct{})
	// fast is set once the Decoder reads lines by the Claude fast path;
	// a batch taken before is fed line by line as Feed reads.
	var fast atomic.Bool
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0)-1, 4)) {
		wg.Go(func() {
			var l claudeReader
			for b := range work {
				if fast.Load() {
					b.readLines(&l)
				}
				b.ready <- struct{}{}
			}
		})
	}
	go func() {
		defer close(work)
		defer close(order)
		var cur *aheadBatch
		n := 0 // lines so far
		take := func() bool {
			if cur == nil {
				select {
				case cur = <-free:
					cur.reset(n + 1)
				case <-stop:
					return false
				}
			}
			return true
		}
		send := func() bool {
			b := cur
			cur = nil
			select {
			case order <- b:
			case <-stop:
				return false
			}
			work <- b
			return true
		}
		add := func(ln aheadLine) error {
			if !take() {
				return errStopped
			}
			n++
			ln.rec = -1
			cur.lines = append(cur.lines, ln)
			if len(cur.data) >= batchBytes && !send() {
				return errStopped
			}
			return nil
		}
		lim := lines.Limit{Max: maxLine, Long: func(size int64) error { return add(aheadLine{long: size}) }}
		err := lines.ReadAll(r, lim, func(line []byte, _ bool) error {
			if !take() {
				return errStopped
			}
			start := len(cur.data)
			cur.data = append(cur.data, line...)
			return add(aheadLine{start: start, end: len(cur.data)})
		})
		if errors.Is(err, errStopped) || !take() {
			return
		}
		cur.err = err
		send()
	}()

	var err error
	for b := range order {
		<-b.ready
		if err == nil {
			err = d.feedBatch(b)
			if err == nil {
				err = b.err
			}
			if err != nil {
				close(stop)
			}
			if _, ok := d.fast.(*claudeParser); ok {
				fast.Store(true)
			}
		}
		free <- b
	}
	wg.Wait()
	return err
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

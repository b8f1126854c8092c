package app

import (
	"cmp"
	"context"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/memory"
	"github.com/spillway-dev/spillway/transcript"
)

// Session is one input through the pipeline: its session read, reconciled
// with every other session of the run and prepared, with its sub-agents'.
//
// A session to be held without its results' texts (Input.TextsOnDemand)
// comes to process with them, read with the rest of its log, so that
// process replays it without reading them again (284 MB of lines on the
// 2 GB fleet's first replay); they are let go when process returns, or
// when it calls DropTexts, which it must before another goroutine may
// see the session.
type Session struct {
	*replay.Prepared
	// Subagents are the sessions of its sub-agent logs, in Input order
	// (those that could be read).
	Subagents []*replay.Prepared
}

// Parts are the session and its sub-agents', in that order.
func (s *Session) Parts() []*replay.Prepared {
	return append([]*replay.Prepared{s.Prepared}, s.Subagents...)
}

// DropTexts lets go the texts of its results that are read again from
// their files when needed; from then on they are.
func (s *Session) DropTexts() {
	for _, p := range s.Parts() {
		if p.TextsOnDemand() {
			dropTexts(p.Session)
		}
	}
}

// Each runs every input through the pipeline: it reads them all (on
// opt.Workers goroutines), reconciles the sessions read together so that a
// response in several files is counted once, prepares each, and hands it
// to process on the same goroutines, then process's results to emit in the
// order of inputs. Every input that cannot be read (or resolved) is passed
// to complain, in order, and counted in the Problems returned; the error
// return is emit's.
//
// Reading sizes only (opt.Read.SizesOnly), each input (its file and its
// sub-agents') is read, reconciled by itself and processed at once, and
// what process returned is held, with the files' reconcile keys
// (transcript.ReconcileKeys), until every input is read: Reconcile only
// links files that share a key, so an input whose files share none with
// another input's is then as it would have been reconciled with all of
// them. The others, and those a Codex sub-agent moves between, are read
// again and reconciled together, as below; process is then called on them
// again and only that result is emitted, so process must have no effect
// but its result when reading sizes only. No more than resultBytes of
// results are held (as HeldBytes tells); an input beyond is read again,
// by itself, at its turn.
//
// Otherwise, and for the inputs read again, memory stays bounded however
// many sessions there are: the reconciling is done over reads that keep
// sizes only, of which no more than holdBytes of transcripts are held
// whole; of the others only what Reconcile decides from is kept (each call
// but its texts, tool calls and results), and they are read again, as
// asked, just before their turn. Sessions whose texts are needed are
// always read again in full.
//
// Once ctx ends, no file is read or prepared any more and Each returns
// ctx's error: a list that moves to another policy does not read the
// rest of its sessions for the one it left.
func Each[T any](ctx context.Context, inputs []Input, stdin io.Reader, opt Options, process func(*Session) (T, error), emit func(T) error, complain func(error)) (Problems, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	stdinName := opt.StdinName
	if stdinName == "" {
		stdinName = "stdin"
	}
	var p Problems
	report := func(err error) {
		p.add(err)
		if complain != nil {
			complain(err)
		}
	}

	// Every file to read once: each input's own, then its sub-agents'.
	var files []file
	groups := make([]group, len(inputs))
	for i, in := range inputs {
		if in.Err != nil {
			groups[i].err = in.Err
			continue
		}
		lean := in.TextsOnDemand && opt.TextFiles != nil && in.Path != "-" && !opt.Read.SizesOnly
		groups[i].main = len(files)
		files = append(files, file{path: in.Path, stdin: in.Path == "-", lean: lean})
		for _, sub := range in.Subagents {
			groups[i].subs = append(groups[i].subs, len(files))
			files = append(files, file{path: sub, lean: lean})
		}
	}
	readStdin := func(f *file, read transcript.Options) {
		head := &headOf{r: stdin}
		f.session, f.err = transcript.Read(head, stdinName, read)
		if f.session != nil {
			f.session.Stdin, f.session.Cwd = true, transcript.Cwd(head.b, head.all)
		}
		f.read = true
	}

	var pace gcPace
	defer pace.restore()
	var kept []outcome[T]
	var holding int64 // of kept
	switch {
	case opt.Read.SizesOnly:
		kept, holding = firstPass(ctx, groups, files, opt, workers, readStdin, process, &pace)
	case opt.Reconciled:
		for i := range files {
			f := &files[i]
			f.again, f.together = !f.stdin, f.stdin // standard input is read once
		}
	default:
		for i := range files {
			files[i].together = true
		}
	}

	// The first read of the files reconciled together: sizes only, unless
	// the texts are needed and this is the only read there will be (one
	// file, or standard input, which cannot be read twice).
	var set []int
	for i := range files {
		if files[i].together {
			set = append(set, i)
		}
	}
	full := !opt.Read.SizesOnly
	once := len(files) == 1
	first := opt.Read
	first.SizesOnly = !(full && once)
	var held int64
	if len(set) > 0 {
		// The first read holds something of every session at once.
		pace.slow()
	}
	err := ordered(len(set), workers, func(j int) int64 {
		f := &files[set[j]]
		if ctx.Err() != nil {
			return 0
		}
		read := first
		if f.stdin {
			if !f.read {
				read.SizesOnly = opt.Read.SizesOnly
				readStdin(f, read)
			}
			return 0
		}
		var size int64
		if st, err := os.Stat(f.path); err == nil {
			size = st.Size()
		}
		if f.lean {
			read.SizesOnly = true // read again without the texts at its turn
		}
		f.session, f.err = opt.readFile(f.path, read)
		return size
	}, func(j int, size int64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		// In order, so that which sessions are held whole does not
		// depend on which read finished first.
		f := &files[set[j]]
		if f.session != nil && f.lean {
			skeleton(f.session)
			f.again = true
			return nil
		}
		if f.session == nil || f.stdin || once || (!full && held+size <= holdBytes) {
			held += size
			return nil
		}
		skeleton(f.session)
		f.again = true
		return nil
	})
	if err != nil {
		return p, err
	}

	var read []*transcript.Session
	for _, k := range set {
		if s := files[k].session; s != nil {
			read = append(read, s)
		}
	}
	if len(set) > 0 {
		reconcile(read)
	}
	if !opt.Read.SizesOnly {
		// Reading sizes only, the first pass related the inputs.
		ids := make([]ident, len(groups))
		for i, g := range groups {
			if g.err != nil {
				continue
			}
			if s := files[g.main].session; s != nil {
				ids[i] = ident{id: s.ID, parent: parentID(s), read: true}
			}
		}
		relate(groups, ids)
	}
	for _, k := range set {
		if f := &files[k]; f.again {
			// Keep what reconciling decided, not the rest.
			f.marks = transcript.Marks(f.session)
			f.session = nil
		}
	}
	if len(set) > 0 {
		runtime.GC() // before the heap may grow by gc% of what it was holding
	}
	if held <= 64<<20 && holding <= slowResults {
		// Beyond that, what is held would let a batch command's gc%
		// grow the heap to several times it: Go's default pace stays
		// until the held reads and results are let go, at their turn.
		pace.restore()
	}

	var stopErr error
	ordered(len(groups), workers, func(i int) outcome[T] {
		g := groups[i]
		switch {
		case ctx.Err() != nil:
			return outcome[T]{}
		case g.moved:
			return outcome[T]{}
		case g.err != nil:
			return outcome[T]{errs: []error{g.err}}
		case g.turn == turnKept:
			d := kept[i]
			kept[i] = outcome[T]{}
			return d
		case g.turn == turnAlone:
			d, _ := readAlone(ctx, g, files, opt, process, readProcess, nil)
			return d
		}
		d := run(ctx, opt, g, func(k int) (*transcript.Session, replay.TextSource, error) {
			f := &files[k]
			s, err := f.session, f.err
			f.session = nil // held no longer than its turn
			var texts replay.TextSource
			if err == nil && f.again {
				if f.lean {
					var ft *FileTexts
					if s, ft, err = opt.readTexts(f.path, nil, opt.TextFiles); ft != nil {
						texts = ft
					}
				} else {
					s, err = opt.readFile(f.path, opt.Read)
				}
				if err == nil && f.marks != nil {
					transcript.CarryMarks(s, f.marks)
				}
			}
			return s, texts, err
		}, process)
		for _, k := range g.subs {
			files[k].session = nil // nothing to count them in, when the session could not be read
		}
		return d
	}, func(i int, d outcome[T]) error {
		if err := ctx.Err(); err != nil {
			stopErr = err
			return err
		}
		if opt.Progress != nil {
			defer opt.Progress(i+1, len(groups))
		}
		for _, err := range d.errs {
			report(err)
		}
		if d.ok {
			if err := emit(d.v); err != nil {
				stopErr = err
				return err
			}
		}
		return nil
	})
	return p, stopErr
}

// outcome is what became of an input at its turn: process's result, and
// what could not be read or processed.
type outcome[T any] struct {
	v    T
	errs []error // in order: the input's own, then its sub-agents'
	ok   bool
}

// run prepares the sessions of g's files, as get gives them, and
// processes them: none when its own file's cannot be.
func run[T any](ctx context.Context, opt Options, g group, get func(k int) (*transcript.Session, replay.TextSource, error), process func(*Session) (T, error)) outcome[T] {
	var d outcome[T]
	load := func(k int) *replay.Prepared {
		s, texts, err := get(k)
		if err != nil {
			d.errs = append(d.errs, err)
			return nil
		}
		prep, err := opt.PrepareTexts(ctx, s, nil, texts)
		if err != nil {
			d.errs = append(d.errs, err)
			return nil
		}
		return prep
	}
	main := load(g.main)
	if main == nil {
		return d
	}
	sess := &Session{Prepared: main}
	for _, k := range g.subs {
		if prep := load(k); prep != nil {
			sess.Subagents = append(sess.Subagents, prep)
		}
	}
	v, err := process(sess)
	sess.DropTexts()
	if err != nil {
		d.errs = append(d.errs, err)
		return d
	}
	d.v, d.ok = v, true
	return d
}

// readAlone reads g's files, sizes only, and as how says returns each
// file's reconcile keys and what relate needs of its own session, and
// reconciles them by themselves and processes them, unless they hold
// standard input (which cannot be read again).
func readAlone[T any](ctx context.Context, g group, files []file, opt Options, process func(*Session) (T, error), how readHow, readStdin func(*file)) (outcome[T], firstRead) {
	keys := how != readProcess
	var fr firstRead
	ks := append([]int{g.main}, g.subs...)
	sessions := make([]*transcript.Session, len(ks))
	errs := make([]error, len(ks))
	var read []*transcript.Session
	for j, k := range ks {
		f := &files[k]
		if how == readKeys && !f.stdin && opt.Known != nil {
			if keys, id, parent, ok := opt.Known(f.path); ok {
				fr.keys = append(fr.keys, keys)
				if j == 0 {
					fr.ident = ident{id: id, parent: parent, read: true}
				}
				continue
			}
		}
		if f.stdin {
			fr.stdin = true
			if !f.read {
				readStdin(f)
			}
			sessions[j], errs[j] = f.session, f.err
		} else {
			sessions[j], errs[j] = opt.readFile(f.path, opt.Read)
		}
		if s := sessions[j]; s != nil {
			if keys {
				fr.keys = append(fr.keys, transcript.ReconcileKeys(s))
				if j == 0 {
					fr.ident = ident{id: s.ID, parent: parentID(s), read: true}
				}
			}
			if how == readKeys {
				sessions[j] = nil // not held while the others are read
			} else {
				read = append(read, s)
			}
		} else if keys {
			fr.keys = append(fr.keys, nil)
		}
	}
	if fr.stdin || how == readKeys {
		return outcome[T]{}, fr
	}
	reconcile(read)
	at := map[int]int{}
	for j, k := range ks {
		at[k] = j
	}
	d := run(ctx, opt, g, func(k int) (*transcript.Session, replay.TextSource, error) {
		j := at[k]
		s, err := sessions[j], errs[j]
		sessions[j] = nil
		return s, nil, err
	}, process)
	fr.processed = true
	return d, fr
}

// readHow is what readAlone does with what it reads.
type readHow uint8

const (
	readProcess     readHow = iota // reconcile and process
	readKeys                       // only find the keys
	readKeysProcess                // both
)

// firstRead is what the first pass keeps of an input's read, besides
// process's result: each file's reconcile keys and its own session's ids.
type firstRead struct {
	keys      [][]uint64 // by file: g.main, then g.subs
	ident     ident
	stdin     bool // one of its files is standard input, held
	processed bool
}

// firstPass reads and processes every input of groups, each by itself
// (see Each), and returns the results held; it marks each group's turn,
// and the files of those read again to be reconciled together.
func firstPass[T any](ctx context.Context, groups []group, files []file, opt Options, workers int, readStdin func(*file, transcript.Options), process func(*Session) (T, error), pace *gcPace) ([]outcome[T], int64) {
	kept := make([]outcome[T], len(groups))
	type keyRef struct {
		key   uint64
		group int32
	}
	var refs []keyRef
	ids := make([]ident, len(groups))
	var holding int64
	sizes := make([]int64, len(groups)) // of the results kept
	var roomless atomic.Bool            // no room left for results: none processed
	roomless.Store(opt.ResultsGrowWithLogs && logBytes(files) > resultBytes)
	type passed struct {
		d  outcome[T]
		fr firstRead
	}
	ordered(len(groups), workers, func(i int) passed {
		var r passed
		if g := groups[i]; g.err == nil && ctx.Err() == nil { // else told at its turn
			how := readKeysProcess
			if roomless.Load() {
				how = readKeys
			}
			r.d, r.fr = readAlone(ctx, g, files, opt, process, how, func(f *file) { readStdin(f, opt.Read) })
		}
		return r
	}, func(i int, r passed) error {
		g := &groups[i]
		if g.err != nil {
			return nil
		}
		for _, keys := range r.fr.keys {
			for _, k := range keys {
				refs = append(refs, keyRef{k, int32(i)})
			}
		}
		ids[i] = r.fr.ident
		if r.fr.stdin {
			g.turn = turnTogether
			return nil
		}
		size := int64(unsafe.Sizeof(r.d)) + 16*int64(len(r.d.errs)) + resultSize(r.d.v)
		if !r.fr.processed || holding+size > resultBytes {
			// Processed again at its turn: so are those after it, as
			// there is so little room left.
			roomless.Store(true)
			g.turn = turnAlone
			return nil
		}
		holding += size
		kept[i], sizes[i], g.turn = r.d, size, turnKept
		if holding > slowResults {
			pace.slow()
		}
		return nil
	})

	// Inputs whose files share a key with another input's.
	slices.SortFunc(refs, func(a, b keyRef) int { return cmp.Compare(a.key, b.key) })
	for i := 0; i < len(refs); {
		j := i + 1
		mixed := false
		for ; j < len(refs) && refs[j].key == refs[i].key; j++ {
			mixed = mixed || refs[j].group != refs[i].group
		}
		if mixed {
			for _, r := range refs[i:j] {
				groups[r.group].turn = turnTogether
			}
		}
		i = j
	}
	for _, m := range relate(groups, ids) {
		groups[m.child].turn, groups[m.parent].turn = turnTogether, turnTogether
	}
	for i := range groups {
		g := &groups[i]
		if g.err != nil || g.turn != turnTogether {
			continue
		}
		kept[i] = outcome[T]{}
		holding -= sizes[i]
		files[g.main].together = true
		for _, k := range g.subs {
			files[k].together = true
		}
	}
	return kept, holding
}

// slowResults is how many bytes of results held make Each collect
// garbage at Go's default pace, not a batch command's.
const slowResults = 32 << 20

// gcPace asks for Go's default pace of garbage collection, or a lower one
// in force, while much is held, and gives it back: a batch command's
// slower pace would let the heap grow to several times what is held.
type gcPace struct{ demand *memory.Demand }

func (p *gcPace) slow() {
	if p.demand == nil {
		p.demand = memory.Pace(100)
	}
}

func (p *gcPace) restore() {
	p.demand.Release()
	p.demand = nil
}

// file is one transcript of the run and what its first read gave.
type file struct {
	path    string
	stdin   bool
	session *transcript.Session // held from the first read to its turn
	marks   *transcript.Session // what reconciling decided, when read again
	again   bool                // to be read again at its turn
	read    bool                // standard input, read
	// together: reconciled with the other files of the run so marked
	// before its turn (all, unless reading sizes only; see Each).
	together bool
	lean     bool // read again without its results' texts (Input.TextsOnDemand)
	err      error
}

// holdBytes bounds the transcripts whose first read is held whole until
// their turn; the others are read again. A sizes-only read of a Claude
// Code session holds about a fifth of its file's size (36 MB for 50
// generated sessions of 3.4 MB), so 512 MiB of transcripts holds about
// 110 MB, and most months of sessions are read once. Tests lower it.
var holdBytes int64 = 512 << 20

// skeleton drops from a sizes-only read what Reconcile does not decide
// from: the calls' texts, tool calls, results and prompts, and the
// warnings. The calls themselves, their lines, times, models and usage,
// stay.
func skeleton(s *transcript.Session) {
	calls := make([]transcript.Call, len(s.Calls)) // without the slack of appending
	for i, c := range s.Calls {
		c.Text, c.ToolCalls, c.Results, c.Prompts = "", nil, nil, nil
		calls[i] = c
	}
	s.Calls = calls
	s.Leading = transcript.Call{Index: -1}
	s.Warnings = nil
}

// group is an input: its own file and its sub-agents', as indexes of files.
type group struct {
	main  int
	subs  []int
	err   error
	moved bool // a sub-agent found to belong to another input
	turn  turn
}

// turn is how an input is processed at its turn.
type turn uint8

const (
	// turnTogether: its files are reconciled with the others so marked,
	// before the turns, and read again as asked.
	turnTogether turn = iota
	// turnKept: processed in the first pass (see Each), its outcome held.
	turnKept
	// turnAlone: read again at its turn and reconciled by itself, as in
	// the first pass, whose outcome there was no room to hold.
	turnAlone
)

// resultBytes bounds the results of process the first pass holds, as
// resultSize counts them: beyond it, inputs are read again at their turn.
// Results that grow with the logs (Options.ResultsGrowWithLogs) are not
// held at all past this many bytes of logs: a report's sessions rendered
// as JSON, held, took 287-290 MB of RSS, 1.70-2.28 s and 3.0-3.7 s of CPU
// over the 683 MB bench corpus, and read again 82-90 MB, 1.40-1.47 s and
// 2.6-2.7 s (CSV: 170-198 against 54-61 MB, 0.94-0.99 against 1.10-1.15
// s); over 20 sessions (68 MB, report's BenchmarkGenerate) reading again
// was 30% slower, so fewer logs are held. Tests lower it.
var resultBytes int64 = 128 << 20

// logBytes is about how many bytes the files hold, as they are now
// (standard input and what cannot be seen count nothing).
func logBytes(files []file) int64 {
	var n int64
	for _, f := range files {
		if info, err := os.Stat(f.path); err == nil && !f.stdin {
			n += info.Size()
		}
	}
	return n
}

// HeldBytes is a result of process that tells how many bytes it holds,
// for Each to bound what it keeps of many.
type HeldBytes interface{ HeldBytes() int64 }

// resultSize is about how many bytes v holds: as it tells (HeldBytes), a
// byte slice's capacity, a string's length, or a kilobyte.
func resultSize(v any) int64 {
	switch v := v.(type) {
	case HeldBytes:
		return v.HeldBytes()
	case []byte:
		return int64(cap(v))
	case string:
		return int64(len(v))
	}
	return 1 << 10
}

// parentID is the id of the session that spawned s as a sub-agent, when
// its log names one (a Codex rollout's session_meta does); "" for a
// session of its own. A fork is a session of its own: the user chose to
// go on from there, and it bills its own calls.
func parentID(s *transcript.Session) string {
	if s.Relation == transcript.RelationSubagent {
		return s.ParentID
	}
	return ""
}

// ident is what relate needs of an input's own session.
type ident struct {
	id, parent string // its session id; its parent's, for a sub-agent (parentID)
	read       bool
}

// move is an input relate put under another, as a sub-agent.
type move struct{ child, parent int }

// relate puts each input whose session names a parent among the others
// under that parent, as a sub-agent: only a read tells which they are.
// ids are the inputs' own sessions'. It returns the moves made.
func relate(groups []group, ids []ident) []move {
	byID := map[string]int{}
	for i, g := range groups {
		if s := ids[i]; g.err == nil && s.read && s.id != "" && s.parent == "" {
			if _, dup := byID[s.id]; !dup {
				byID[s.id] = i
			}
		}
	}
	var moves []move
	for i := range groups {
		g := &groups[i]
		s := ids[i]
		if g.err != nil || !s.read {
			continue
		}
		if parent, ok := byID[s.parent]; ok && parent != i && s.parent != "" {
			groups[parent].subs = append(groups[parent].subs, g.main)
			groups[parent].subs = append(groups[parent].subs, g.subs...)
			g.moved = true
			moves = append(moves, move{child: i, parent: parent})
		}
	}
	return moves
}

// ordered runs job(i) for every i below n on workers goroutines and hands
// the results to fn in order of i. At most 2×workers results wait at
// once, so memory stays that of a few jobs however many there are. An
// error from fn stops the work and is returned.
func ordered[T any](n, workers int, job func(i int) T, fn func(i int, v T) error) error {
	results := make([]chan T, n)
	for i := range results {
		results[i] = make(chan T, 1)
	}
	window := make(chan struct{}, 2*workers)
	jobs := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	crash.Go(func() {
		defer close(jobs)
		for i := range n {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	})
	for range workers {
		crash.GoIn(&wg, func() {
			for i := range jobs {
				results[i] <- job(i)
			}
		})
	}
	defer func() {
		close(stop)
		for range jobs { // let the feeder exit
		}
		wg.Wait()
	}()
	for i := range n {
		v := <-results[i]
		<-window
		if err := fn(i, v); err != nil {
			return err
		}
	}
	return nil
}

// headOf keeps the first bytes read through it, as many as transcript.Cwd
// looks at, and whether they are all there was.
type headOf struct {
	r   io.Reader
	b   []byte
	all bool
}

func (h *headOf) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if room := transcript.CwdBytes + 1 - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(n, room)]...)
	}
	if err == io.EOF {
		h.all = len(h.b) <= transcript.CwdBytes
	}
	return n, err
}

package app

import (
	"context"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/transcript"
)

// Session is one input through the pipeline: its session read, reconciled
// with every other session of the run and prepared, with its sub-agents'.
type Session struct {
	*replay.Prepared
	// Subagents are the sessions of its sub-agent logs, in Input order
	// (those that could be read).
	Subagents []*replay.Prepared
}

// Each runs every input through the pipeline: it reads them all (on
// opt.Workers goroutines), reconciles the sessions read together so that a
// response in several files is counted once, prepares each, and hands it
// to process on the same goroutines, then process's results to emit in the
// order of inputs. Memory stays bounded however many sessions there are:
// the reconciling is done over reads that keep sizes only, of which no more
// than holdBytes of transcripts are held whole; of the others only what
// Reconcile decides from is kept (each call but its texts, tool calls and
// results), and they are read again, as asked, just before their turn.
// Sessions whose texts are needed are always read again in full. Every
// input that cannot be read (or resolved) is passed to complain, in order,
// and counted in the Problems returned; the error return is emit's.
func Each[T any](inputs []Input, stdin io.Reader, opt Options, process func(*Session) (T, error), emit func(T) error, complain func(error)) (Problems, error) {
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

	// The first read: sizes only, unless the texts are needed and this is
	// the only read there will be (one file, or standard input, which
	// cannot be read twice).
	full := !opt.Read.SizesOnly
	once := len(files) == 1
	first := opt.Read
	first.SizesOnly = !(full && once)
	var held int64
	// The first read holds something of every session at once: collect
	// at least as often as Go's default until it is let go, whatever a
	// batch command set for holding only a few sessions.
	gc := debug.SetGCPercent(100)
	if gc >= 0 && gc < 100 {
		debug.SetGCPercent(gc)
	}
	defer debug.SetGCPercent(gc)
	ordered(len(files), workers, func(i int) int64 {
		f := &files[i]
		read := first
		if f.stdin {
			read.SizesOnly = opt.Read.SizesOnly
			f.session, f.err = transcript.Read(stdin, stdinName, read)
			return 0
		}
		var size int64
		if st, err := os.Stat(f.path); err == nil {
			size = st.Size()
		}
		if f.lean {
			read.SizesOnly = true // read again without the texts at its turn
		}
		f.session, f.err = transcript.ReadFile(f.path, read)
		return size
	}, func(i int, size int64) error {
		// In order, so that which sessions are held whole does not
		// depend on which read finished first.
		f := &files[i]
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

	var read []*transcript.Session
	for i := range files {
		if files[i].session != nil {
			read = append(read, files[i].session)
		}
	}
	reconcile(read)
	groups = relate(groups, files)
	for i := range files {
		if f := &files[i]; f.again {
			// Keep what reconciling decided, not the rest.
			f.marks = marksOf(f.session)
			f.session = nil
		}
	}
	runtime.GC() // before the heap may grow by gc% of what it was holding
	if held <= 64<<20 {
		// Beyond that, what is held would let a batch command's gc% grow
		// the heap to several times it: Go's default pace stays until the
		// held reads are let go, at their turn.
		debug.SetGCPercent(gc)
	}

	type done struct {
		v    T
		errs []error // in order: the input's own, then its sub-agents'
		ok   bool
	}
	var emitErr error
	ordered(len(groups), workers, func(i int) done {
		g := groups[i]
		if g.moved {
			return done{}
		}
		if g.err != nil {
			return done{errs: []error{g.err}}
		}
		var d done
		load := func(k int) *replay.Prepared {
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
					s, err = transcript.ReadFile(f.path, opt.Read)
				}
				if err == nil && f.marks != nil {
					transcript.CarryMarks(s, f.marks)
				}
			}
			if err != nil {
				d.errs = append(d.errs, err)
				return nil
			}
			prep, err := opt.PrepareTexts(context.Background(), s, nil, texts)
			if texts != nil {
				dropTexts(s)
			}
			if err != nil {
				d.errs = append(d.errs, err)
				return nil
			}
			return prep
		}
		main := load(g.main)
		if main == nil {
			for _, k := range g.subs {
				files[k].session = nil // nothing to count them in
			}
			return d
		}
		sess := &Session{Prepared: main}
		for _, k := range g.subs {
			if prep := load(k); prep != nil {
				sess.Subagents = append(sess.Subagents, prep)
			}
		}
		v, err := process(sess)
		if err != nil {
			d.errs = append(d.errs, err)
			return d
		}
		d.v, d.ok = v, true
		return d
	}, func(_ int, d done) error {
		for _, err := range d.errs {
			report(err)
		}
		if d.ok {
			if err := emit(d.v); err != nil {
				emitErr = err
				return err
			}
		}
		return nil
	})
	return p, emitErr
}

// file is one transcript of the run and what its first read gave.
type file struct {
	path    string
	stdin   bool
	session *transcript.Session // held from the first read to its turn
	marks   *transcript.Session // what reconciling decided, when read again
	again   bool                // to be read again at its turn
	lean    bool                // read again without its results' texts (Input.TextsOnDemand)
	err     error
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
}

// marksOf keeps of s only the calls Reconcile marked, for CarryMarks; nil
// when there are none.
func marksOf(s *transcript.Session) *transcript.Session {
	var calls []transcript.Call
	for _, c := range s.Calls {
		if c.CountedIn != "" {
			calls = append(calls, transcript.Call{Line: c.Line, CountedIn: c.CountedIn})
		}
	}
	if calls == nil {
		return nil
	}
	return &transcript.Session{Path: s.Path, Calls: calls}
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

// relate puts each input whose session names a parent among the others
// under that parent, as a sub-agent: only a read tells which they are.
func relate(groups []group, files []file) []group {
	byID := map[string]int{}
	for i, g := range groups {
		if g.err == nil {
			if s := files[g.main].session; s != nil && s.ID != "" && parentID(s) == "" {
				if _, dup := byID[s.ID]; !dup {
					byID[s.ID] = i
				}
			}
		}
	}
	for i := range groups {
		g := &groups[i]
		if g.err != nil {
			continue
		}
		s := files[g.main].session
		if s == nil {
			continue
		}
		if parent, ok := byID[parentID(s)]; ok && parent != i && parentID(s) != "" {
			groups[parent].subs = append(groups[parent].subs, g.main)
			groups[parent].subs = append(groups[parent].subs, g.subs...)
			g.moved = true
		}
	}
	return groups
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
	go func() {
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
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] <- job(i)
			}
		}()
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

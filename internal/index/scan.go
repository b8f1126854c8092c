package index

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/transcript"
)

// scan is one Scan: every file of the inputs, what was known or read of
// each, and the inputs as groups of files.
type scan struct {
	ix     *Index
	files  []scanFile
	groups []group
	// cacheLoaded, when not nil, closes once ix.cache is read.
	cacheLoaded <-chan struct{}
	// changed, when not nil, says which files may have changed since the
	// Index's last scan (see ScanChanged).
	changed func(path string) bool
	// known, when not nil, are files read for the scan already (Adopt).
	known map[string]recorded
}

// ScanChanged is Scan for a caller that is told of every change to the
// files (a file-system watch): changed says which files may have changed
// since this Index's last Scan, and a file it rules out that the last
// Scan read is taken as that Scan found it, without even a stat. A
// rescan of 2,000 followed sessions after one grew then opens one file,
// not 2,689. A nil changed is Scan's: every file is looked at.
func (ix *Index) ScanChanged(ctx context.Context, inputs []app.Input, changed func(path string) bool, progress func(done, total int)) ([]Entry, []Warning, error) {
	return ix.scan(ctx, inputs, changed, nil, progress)
}

// scanFile is one transcript of a scan.
type scanFile struct {
	path string
	key  fileKey
	// own is the file's summary read alone, final its summary reconciled
	// with the files it shares responses with (own when it shares none).
	own, final *fileSum
	err        error
	cached     bool // own came from the cache
	// comp is the hash of its reconciliation group (0 when alone).
	comp uint64
}

// group is an input: its own file and its sub-agents', as indexes of files.
type group struct {
	main  int
	subs  []int
	err   error
	path  string
	moved bool // a Codex rollout found to belong to another input
}

func newScan(ix *Index, inputs []app.Input) *scan {
	n := 0
	for _, in := range inputs {
		n += 1 + len(in.Subagents)
	}
	s := &scan{ix: ix, groups: make([]group, len(inputs)), files: make([]scanFile, 0, n)}
	seen := make(map[string]int, n)
	add := func(path string) int {
		c := filepath.Clean(path)
		if i, ok := seen[c]; ok {
			return i
		}
		seen[c] = len(s.files)
		s.files = append(s.files, scanFile{path: path})
		return len(s.files) - 1
	}
	for i, in := range inputs {
		g := &s.groups[i]
		g.path = in.Path
		switch {
		case in.Err != nil:
			g.err = in.Err
			continue
		case in.Path == "-":
			g.err = fmt.Errorf("standard input is not indexed; name a file")
			continue
		}
		if _, dup := seen[filepath.Clean(in.Path)]; dup {
			g.moved = true // named twice: counted once, where first named
			continue
		}
		g.main = add(in.Path)
		for _, sub := range in.Subagents {
			if _, dup := seen[filepath.Clean(sub)]; !dup {
				g.subs = append(g.subs, add(sub))
			}
		}
	}
	return s
}

// run reads or recalls every file's summary, then reconciles the files
// that share responses.
// It returns the warnings and the set's signature (see recall).
func (s *scan) run(ctx context.Context, progress func(done, total int)) ([]Warning, uint64) {
	var mu sync.Mutex
	done, total := 0, len(s.files)
	tell := func() {
		if progress != nil {
			mu.Lock()
			done++
			progress(done, total)
			mu.Unlock()
		}
	}
	s.parallel(ctx, len(s.files), func(i int) {
		f := &s.files[i]
		defer tell()
		if s.changed != nil && !s.changed(f.path) {
			if last, ok := s.ix.seen[f.path]; ok && last.own != nil {
				// As the cache would give it: the cache holds this summary.
				f.key, f.own, f.cached = last.key, last.own, !s.ix.opt.NoCache
				return
			}
		}
		if r, ok := s.known[f.path]; ok {
			f.key, f.own = r.key, r.own
			return
		}
		key, err := stat(f.path)
		if err != nil {
			f.err = err
			return
		}
		if s.cacheLoaded != nil {
			<-s.cacheLoaded
		}
		if c := s.ix.cache.lookup(f.path, key); c != nil {
			f.key, f.own, f.cached = key, c, true
			return
		}
		arena := arenas.Get().(*transcript.Arena)
		defer arenas.Put(arena)
		defer arena.Reset() // for the next file: the summary keeps none of it
		sess, k, err := s.ix.read(f.path, arena)
		if err != nil {
			f.err = err
			return
		}
		f.key = k
		f.own = summarize(sess, s.ix.opt.Prices)
		f.own.Project = transcript.Project(f.path, k.cwd)
	})
	if s.cacheLoaded != nil {
		<-s.cacheLoaded // for a scan of no files too
	}
	if ctx.Err() != nil {
		return nil, 0
	}
	set := s.setSignature()
	if s.recall(set) {
		return nil, set
	}
	return s.reconcile(ctx), set
}

// setSignature identifies the files read, in order, with their keys: the
// same set gives the same reconciliation groups.
func (s *scan) setSignature() uint64 {
	var read []int
	for i := range s.files {
		if s.files[i].own != nil {
			read = append(read, i)
		}
	}
	return s.signature(read)
}

// recall takes every file's final summary from the cache when the files
// are the very ones of the scan that wrote it, unchanged: their groups are
// then the same, and the cost of grouping the files by their keys (a
// large map) is saved. It reports whether it could.
func (s *scan) recall(set uint64) bool {
	c := s.ix.cache
	if c == nil || c.data.LastScan == 0 || c.data.LastScan != set {
		return false
	}
	for i := range s.files {
		f := &s.files[i]
		if f.own == nil {
			continue
		}
		r := c.data.Files[f.path]
		if !f.cached || r == nil || (r.Comp != 0 && r.Final == nil) {
			return false
		}
	}
	for i := range s.files {
		f := &s.files[i]
		if f.own == nil {
			continue
		}
		r := c.data.Files[f.path]
		f.comp, f.final = r.Comp, r.Own
		if r.Comp != 0 {
			f.final = r.Final
		}
	}
	return true
}

// arenas hold the arrays of the sessions the workers read, each dropped
// once summarized, for the next file (see transcript.Arena).
var arenas = sync.Pool{New: func() any { return new(transcript.Arena) }}

// parallel runs job(i) for every i below n on the index's workers, until
// ctx is done.
func (s *scan) parallel(ctx context.Context, n int, job func(i int)) {
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range min(s.ix.opt.Workers, max(n, 1)) {
		crash.GoIn(&wg, func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				job(i)
			}
		})
	}
	wg.Wait()
}

// reconcile groups the files read by the responses they share and
// reconciles each group of two or more as transcript.Reconcile would over
// all of them: it only ever links calls of files that share a key. A group
// the cache reconciled with the same files, unchanged, is not read again.
func (s *scan) reconcile(ctx context.Context) []Warning {
	parent := make([]int, len(s.files))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// Files sharing a key are joined: the keys of every file, sorted and
	// kept by the Index between scans (keys.go).
	at := s.ix.keyed.update(s.files)
	for i := 1; i < len(at.keys); i++ {
		if at.keys[i] == at.keys[i-1] {
			x, y := at.scanIndex(i), at.scanIndex(i-1)
			if a, b := find(x), find(y); a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	comps := map[int][]int{}
	var roots []int
	for i := range s.files {
		if s.files[i].own == nil {
			continue
		}
		r := find(i)
		if _, ok := comps[r]; !ok {
			roots = append(roots, r)
		}
		comps[r] = append(comps[r], i)
	}
	var todo [][]int
	for _, r := range roots {
		members := comps[r]
		if len(members) == 1 {
			f := &s.files[members[0]]
			f.final = f.own
			continue
		}
		sig := s.signature(members)
		recalled := true
		for _, m := range members {
			f := &s.files[m]
			f.comp = sig
			if sum := s.ix.cache.reconciled(f.path, f.key, sig); sum != nil && f.cached {
				f.final = sum
			} else {
				recalled = false
			}
		}
		if !recalled {
			todo = append(todo, members)
		}
	}
	var warnings []Warning
	var mu sync.Mutex
	s.parallel(ctx, len(todo), func(i int) {
		w := s.reconcileGroup(todo[i])
		mu.Lock()
		warnings = append(warnings, w...)
		mu.Unlock()
	})
	return warnings
}

// reconcileGroup reads members again, reconciles them together and sets
// their final summaries. A member that can no longer be read, or that
// changed since, is left out of the scan with the others reconciled
// without it.
func (s *scan) reconcileGroup(members []int) []Warning {
	var sessions []*transcript.Session
	var read []int
	arena := arenas.Get().(*transcript.Arena)
	defer arenas.Put(arena)
	defer arena.Reset()
	for _, m := range members {
		f := &s.files[m]
		sess, k, err := s.ix.read(f.path, arena)
		if err == nil && !k.same(f.key) {
			err = fmt.Errorf("%s %w", f.path, errChanged)
		}
		if err != nil {
			f.err, f.own, f.final = err, nil, nil
			continue
		}
		sessions = append(sessions, sess)
		read = append(read, m)
	}
	transcript.Reconcile(sessions)
	for i, m := range read {
		f := &s.files[m]
		f.final = summarize(sessions[i], s.ix.opt.Prices)
		f.final.Project = f.own.Project
	}
	return nil
}

// signature identifies a reconciliation group by its files and their keys.
func (s *scan) signature(members []int) uint64 {
	h := newHash()
	for _, m := range members {
		f := &s.files[m]
		h.str(f.path)
		h.u64(uint64(f.key.Size))
		h.u64(uint64(f.key.ModTime))
		h.u64(f.key.Inode)
		h.u64(f.key.Head)
	}
	return h.sum()
}

// parentID is the session that spawned a Codex rollout as a sub-agent, as
// app.Each reads it: "" for a session of its own (a fork is one).
func parentID(f *fileSum) string {
	if f.Relation == transcript.RelationSubagent {
		return f.ParentID
	}
	return ""
}

// entries sums each input's files into its Entry, moving a Codex rollout
// that names another input's session as its parent under it, as app.Each
// does, and warns of every input and file left out.
func (s *scan) entries() ([]Entry, []Warning) {
	final := func(i int) *fileSum { return s.files[i].final }
	byID := map[string]int{}
	for i, g := range s.groups {
		if g.err != nil || g.moved {
			continue
		}
		if f := final(g.main); f != nil && f.ID != "" && parentID(f) == "" {
			if _, dup := byID[f.ID]; !dup {
				byID[f.ID] = i
			}
		}
	}
	for i := range s.groups {
		g := &s.groups[i]
		if g.err != nil || g.moved {
			continue
		}
		f := final(g.main)
		if f == nil || parentID(f) == "" {
			continue
		}
		if p, ok := byID[parentID(f)]; ok && p != i {
			s.groups[p].subs = append(s.groups[p].subs, g.main)
			s.groups[p].subs = append(s.groups[p].subs, g.subs...)
			g.moved = true
		}
	}
	out := make([]Entry, 0, len(s.groups))
	var warnings []Warning
	memo := make(map[string]*summed, len(s.groups))
	for _, g := range s.groups {
		if g.moved {
			continue
		}
		if g.err != nil {
			warnings = append(warnings, Warning{Path: g.path, Err: g.err})
			continue
		}
		main := &s.files[g.main]
		if main.final == nil {
			warnings = append(warnings, Warning{Path: main.path, Err: main.err})
			continue
		}
		if m := s.ix.summed[main.path]; m.same(s, g) {
			out = append(out, m.entry)
			memo[main.path] = m
			continue
		}
		e := entryOf(main.path, main.final)
		e.touched(main.key)
		for _, k := range g.subs {
			sub := &s.files[k]
			if sub.final == nil {
				warnings = append(warnings, Warning{Path: sub.path, Err: sub.err})
				continue
			}
			e.include(sub.path, sub.final)
			e.touched(sub.key)
		}
		e.finish()
		e.Groups = groupsOf(s, g)
		out = append(out, e.Entry)
		if m := summedOf(s, g, e.Entry); m != nil {
			memo[main.path] = m
		}
	}
	s.ix.summed = memo
	return out, warnings
}

// groupsOf names the reconciliation groups of g's files.
func groupsOf(s *scan, g group) []uint64 {
	var out []uint64
	for _, i := range append([]int{g.main}, g.subs...) {
		if c := s.files[i].comp; c != 0 && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// summed is an Entry as a scan summed it, with the summaries and sizes
// and times it was summed from: the next scan that finds the same ones
// (a rescan after another session grew) gives the same Entry. An Entry's
// slices are then shared between the two scans' entries.
type summed struct {
	entry Entry
	parts []summedPart
}

type summedPart struct {
	final         *fileSum
	size, modTime int64
	comp          uint64
}

// summedOf is e's summed, nil when a file of g was left out of it.
func summedOf(s *scan, g group, e Entry) *summed {
	m := &summed{entry: e, parts: make([]summedPart, 0, 1+len(g.subs))}
	for _, i := range append([]int{g.main}, g.subs...) {
		f := &s.files[i]
		if f.final == nil {
			return nil
		}
		m.parts = append(m.parts, summedPart{f.final, f.key.Size, f.key.ModTime, f.comp})
	}
	return m
}

// same says g's files are those m was summed from, as they were.
func (m *summed) same(s *scan, g group) bool {
	if m == nil || len(m.parts) != 1+len(g.subs) {
		return false
	}
	for j, i := range append([]int{g.main}, g.subs...) {
		f, p := &s.files[i], m.parts[j]
		if f.final != p.final || f.key.Size != p.size || f.key.ModTime != p.modTime || f.comp != p.comp || (j > 0 && m.entry.Subagents[j-1] != f.path) {
			return false
		}
	}
	return true
}

// building is an Entry being summed, with the tally its totals are a view
// of.
type building struct {
	Entry
	tally app.Tally
	sizes [][]int // each file's ResultSizes
}

func entryOf(path string, f *fileSum) *building {
	b := &building{Entry: Entry{
		Path: path, Format: f.Format, Version: f.Version, SessionID: f.ID, Title: f.Title, Project: f.Project,
	}}
	b.add(f)
	return b
}

// touched counts in a file's size and modification time.
func (b *building) touched(k fileKey) {
	b.Bytes += k.Size
	if t := time.Unix(0, k.ModTime).UTC(); t.After(b.Modified) {
		b.Modified = t
	}
}

func (b *building) include(path string, f *fileSum) {
	b.Subagents = append(b.Subagents, path)
	part := Part{Path: path, APICalls: f.Calls, CostUSD: f.Cost()}
	if n := len(f.ResultSizes); n > 0 {
		part.LargestResult = f.ResultSizes[n-1]
	}
	b.SubagentParts = append(b.SubagentParts, part)
	b.add(f)
}

// add sums f in, in report's order: each file's priced cost, then the next's.
func (b *building) add(f *fileSum) {
	b.tally.Add(f.Tally)
	b.sizes = append(b.sizes, f.ResultSizes)
}

// finish sets the Entry's totals from its tally.
func (b *building) finish() {
	e, t := &b.Entry, &b.tally
	e.First, e.Last, e.Models = t.First, t.Last, t.Models
	e.APICalls, e.CopiedCalls, e.Recorded = t.Calls, t.Copied, t.Recorded
	e.Results, e.ResultBytes = t.Results, t.ResultBytes
	e.Compactions, e.Warnings = t.Compactions, t.Warnings
	e.ResultSizes = mergeSorted(b.sizes, e.Results)
	if n := len(e.ResultSizes); n > 0 {
		e.LargestResult = e.ResultSizes[n-1]
	}
	e.UnpricedModels = t.Unpriced
	e.CostUSD = t.Cost()
	e.ByModel = nil
	for _, m := range t.ByModel {
		mt := ModelTotals{Model: m.Model, APICalls: m.APICalls, Recorded: m.Recorded}
		if m.Priced {
			usd := m.CostUSD
			mt.CostUSD = &usd
		}
		e.ByModel = append(e.ByModel, mt)
	}
}

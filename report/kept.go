package report

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"io"
	"os"
	"slices"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/ledger"
)

// A report of many sessions (grouped, or a sweep) keeps each session's
// share of it with its logs' records in the session index (index.Memo),
// so that the same report run again reads only the logs written since: a
// month of logs by day answers in a fraction of a second. The first run
// reads the logs through the index's Recorder, which leaves the cache as a
// scan would without reading them twice; later runs scan (a stat and 4 KiB
// a log) and report again only the sessions whose logs changed, with those
// they share a response with. A share is taken only under the same report
// (the spec: format, grouping, zone, cut, policy, ceilings, encoding,
// spill folder) and, for a report that shows what the hook did, with the
// session's hook ledger as it is now; the index lets it go with a log it
// reads again, and with spillway's version, the prices and the reading
// options.

// keeping is what a report keeps of each session in the index: under
// kind (the index keeps the last few of a kind per log), for spec.
type keeping[T any] struct {
	kind   string
	spec   []byte
	encode func(T) []byte
	decode func([]byte) (T, error)
	// input is the path of the input a share is of.
	input func(T) string
}

// eachKept is app.Each over the resolved inputs for a report that keeps
// its shares as k says: the shares kept for inputs whose logs are as they
// were are handed to emit, in the order of inputs, between those
// processed afresh (a report sums them in that order, to the last bit),
// and what is processed is kept for the next run; with no kind, nothing
// is kept. Either way, logs the index has just scanned are related
// without reading each first (app.Options.Known), and a first run leaves
// their records for the next. Without opt.CacheDir, or with standard
// input, it is app.Each.
func eachKept[T any](resolved []app.Input, stdin io.Reader, opt Options, k *keeping[T], process func(*app.Session) (T, error), emit func(T) error, complain func(error)) (Problems, error) {
	c := openKept(resolved, opt, k.kind, k.spec, complain)
	if c == nil {
		return app.Each(context.Background(), resolved, stdin, opt, process, emit, complain)
	}
	ctx := context.Background()
	kept, todo := c.remembered(ctx, resolved)
	if c.rec != nil {
		opt.ReadFile = c.rec.ReadFile
	} else if c.entries != nil {
		opt.Known = c.ix.Relating // as just scanned: the logs are related without reading them first
	}
	shares := make([]*T, len(kept))
	total := len(todo)
	for i, b := range kept {
		if b == nil {
			continue
		}
		v, err := k.decode(b)
		if err != nil {
			// Unreadable: the whole run reads afresh, as the first.
			return eachKept(resolved, stdin, opt, &keeping[T]{}, process, emit, complain)
		}
		shares[i] = &v
		total++
	}
	at := map[string]int{}
	for i := len(resolved) - 1; i >= 0; i-- {
		at[resolved[i].Path] = i
	}
	next := 0
	progress, read, told := opt.Progress, 0, 0 // sessions read afresh, shares told
	if progress != nil {
		opt.Progress = func(done, _ int) { read = done; progress(read+told, total) }
	}
	shared := func(upTo int) error {
		for ; next < upTo && next < len(shares); next++ {
			if v := shares[next]; v != nil {
				if err := emit(*v); err != nil {
					return err
				}
				if told++; progress != nil {
					progress(read+told, total)
				}
			}
		}
		return nil
	}
	fresh := func(v T) error {
		in := k.input(v)
		i, ok := at[in]
		if !ok {
			i = next
		}
		if err := shared(i); err != nil {
			return err
		}
		c.keep(in, k.encode(v))
		return emit(v)
	}
	if k.kind == "" {
		fresh = emit // nothing kept, nothing to put between
	}
	p, err := app.Each(context.Background(), todo, stdin, opt, process, fresh, complain)
	if err == nil {
		err = shared(len(shares))
	}
	if err == nil {
		c.finish(ctx, resolved)
	}
	return p, err
}

// keptCache is a report's use of the index.
type keptCache struct {
	ix   *index.Index
	rec  *index.Recorder // reading every log: the first run
	spec []byte          // what a share depends on but the logs
	kind string          // of its memos
	// ledger is the hook ledger's folder, whose session file a share
	// depends on.
	ledger string
	// kept are the shares reported, to keep once the index has the logs'
	// records, by input path; keptBytes bounds them.
	kept      map[string][]byte
	keptBytes int
	// entries are the scan's, where the index held the logs.
	entries []index.Entry
	// warn tells of a cache ignored or not written.
	warn func(error)
}

// maxKeptBytes bounds the shares a report holds to keep at its end: a
// JSON share is some kilobytes, so this is tens of thousands of sessions.
const maxKeptBytes = 256 << 20

// openKept opens the index for a report of inputs under opt, or returns
// nil where nothing is to be kept: no cache folder, standard input, or
// an index that cannot be opened.
func openKept(inputs []app.Input, opt Options, kind string, spec []byte, warn func(error)) *keptCache {
	if opt.CacheDir == "" {
		return nil
	}
	for _, in := range inputs {
		if in.Path == "-" {
			return nil
		}
	}
	ix, err := index.Open(index.Options{Prices: opt.Prices, Read: opt.Read, CacheDir: opt.CacheDir, FlushOnly: true})
	if err != nil {
		return nil
	}
	return &keptCache{ix: ix, spec: spec, kind: kind, ledger: opt.Ledger, kept: map[string][]byte{}, warn: warn}
}

// key is the key of e's share: the report's spec, e's files, and its hook
// ledger's file as it is now.
func (c *keptCache) key(e *index.Entry) uint64 {
	h := fnv.New64a()
	h.Write(c.spec)
	h.Write([]byte("\x00" + e.Path))
	for _, s := range e.Subagents {
		h.Write([]byte("\x00" + s))
	}
	if c.ledger != "" && e.SessionID != "" {
		if st, err := os.Stat(ledger.File(c.ledger, e.SessionID)); err == nil {
			h.Write(binary.AppendVarint(nil, st.Size()))
			h.Write(binary.AppendVarint(nil, st.ModTime().UnixNano()))
		}
	}
	return h.Sum64()
}

// remembered scans inputs and returns the shares kept for them, by input,
// and the inputs to report afresh: those without a share, and every input
// that shares a response with one of them (a copy is counted in one
// session, decided among them all). With most logs not in the index (the
// first run), it reports every input afresh, reading them through the
// Recorder, and returns no shares.
func (c *keptCache) remembered(ctx context.Context, inputs []app.Input) ([][]byte, []app.Input) {
	// A report that keeps no share reads each log for its keys anyway: the
	// index's scan reads them for it, once, the first time too.
	if c.kind != "" && !c.known(inputs) {
		c.rec = c.ix.Recorder()
		return nil, inputs
	}
	entries, warnings, err := c.ix.Scan(ctx, inputs, nil)
	c.told(warnings)
	if err != nil {
		return nil, inputs
	}
	c.entries = entries
	if c.kind == "" {
		return make([][]byte, len(inputs)), inputs // no share to look up (each a stat of a hook ledger)
	}
	owner := map[string]int{} // a log's entry: its session's, or a sub-agent's parent's
	for i := range entries {
		owner[entries[i].Path] = i
		for _, s := range entries[i].Subagents {
			owner[s] = i
		}
	}
	found := make([][]byte, len(entries))
	staleGroups := map[uint64]bool{}
	for i := range entries {
		e := &entries[i]
		if b, ok := c.ix.ScannedMemo(c.kind, c.key(e), append([]string{e.Path}, e.Subagents...)...); ok {
			found[i] = b
			continue
		}
		for _, g := range e.Groups {
			staleGroups[g] = true
		}
	}
	for i := range entries {
		if found[i] != nil && slices.ContainsFunc(entries[i].Groups, func(g uint64) bool { return staleGroups[g] }) {
			found[i] = nil
		}
	}
	shares := make([][]byte, len(inputs))
	var todo []app.Input
	for i, in := range inputs {
		if e, ok := owner[in.Path]; ok && in.Err == nil && found[e] != nil {
			if entries[e].Path == in.Path {
				shares[i] = found[e]
			}
			continue // a sub-agent's share is its parent's
		}
		todo = append(todo, in)
	}
	return shares, todo
}

// known tells whether the index holds a record of most of inputs' logs,
// as a first run's Recorder or the session list leaves it: scanning is then
// a stat a log and reading the few that changed. Else the logs are read
// once, by the report, through the Recorder.
func (c *keptCache) known(inputs []app.Input) bool {
	var paths []string
	for _, in := range inputs {
		if in.Err == nil {
			paths = append(paths, in.Path)
			paths = append(paths, in.Subagents...)
		}
	}
	return c.ix.Holds(paths) >= (len(paths)+1)/2
}

// keep holds b, the share of the input at path, to keep at the end.
func (c *keptCache) keep(path string, b []byte) {
	if c.keptBytes > maxKeptBytes {
		return
	}
	c.kept[path] = b
	c.keptBytes += len(b)
}

// finish keeps the shares reported, once the index has the records of
// inputs' logs (from the Recorder's reads, or the scan), and writes the
// cache file.
func (c *keptCache) finish(ctx context.Context, inputs []app.Input) {
	if len(c.kept) == 0 && c.rec == nil {
		if err := c.ix.Flush(); err != nil { // what the scan read
			c.warn(err)
		}
		return
	}
	entries := c.entries
	if c.rec != nil {
		var warnings []index.Warning
		var err error
		entries, warnings, err = c.ix.Adopt(ctx, inputs, c.rec)
		c.told(warnings)
		if err != nil {
			return
		}
	}
	for i := range entries {
		e := &entries[i]
		files := append([]string{e.Path}, e.Subagents...)
		if b, ok := c.kept[e.Path]; ok && (c.rec == nil || c.rec.Recorded(files...)) {
			c.ix.SetMemo(e.Path, c.kind, c.key(e), b)
		}
	}
	if err := c.ix.Flush(); err != nil {
		c.warn(err) // read again next time
	}
}

// told passes on the warnings about the cache; those about logs are the
// report's own to give.
func (c *keptCache) told(warnings []index.Warning) {
	for _, w := range warnings {
		if w.Path == c.ix.CacheFile() {
			c.warn(w)
		}
	}
}

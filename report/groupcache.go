package report

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"time"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/ledger"
)

// A grouped report keeps each session's share, its rendering and its part
// of the groups, with its logs' records in the session index (index.Memo),
// so that the same report run again reads only the logs written since:
// a month of logs by day answers in a fraction of a second. The first run
// reads the logs through the index's Recorder, which leaves the cache as a
// scan would without reading them twice; later runs scan (a stat and 4 KiB
// a log) and report again only the sessions whose logs changed, with those
// they share a response with. A share is taken only under the same report
// (format, grouping, zone, cut, width, policy, encoding, spill folder and
// the session's hook ledger as it is now), and the index lets it go with a
// log it reads again, and with spillway's version, the prices and the
// reading options.

// groupMemoKind is the memo kind of a report's shares in format: the
// index keeps the last three of a kind, so three of each format.
func groupMemoKind(format string) string { return "report " + format }

// groupCache is a grouped report's use of the index.
type groupCache struct {
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
	// warn tells of a cache ignored or not written, once.
	warn func(error)
}

// maxKeptBytes bounds the shares a report holds to keep at its end: a
// JSON share is some kilobytes, so this is tens of thousands of sessions.
const maxKeptBytes = 256 << 20

// openGroupCache opens the index for a report of inputs grouped as g in
// format under opt, or returns nil where nothing is to be kept: no cache
// folder, standard input, calls listed (a share about as large as its
// log), spill files written, or an index that cannot be opened.
func openGroupCache(inputs []app.Input, opt Options, g Grouping, format string, warn func(error)) *groupCache {
	if opt.CacheDir == "" || g.Calls || opt.WriteSpills || opt.Texts {
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
	spec, err := json.Marshal(struct {
		Format, By, Zone        string
		Since, Until            int64
		Policy                  any
		Encoding, Spills, Table string
	}{format, g.By, g.ZoneName, unixOrZero(g.Since), unixOrZero(g.Until), opt.Policy, opt.Encoding, opt.SpillRoot, opt.Prices.Source})
	if err != nil {
		return nil
	}
	return &groupCache{ix: ix, spec: spec, kind: groupMemoKind(format), ledger: opt.Ledger, kept: map[string][]byte{}, warn: warn}
}

func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// key is the key of e's share: the report's spec, e's files, and its hook
// ledger's file as it is now.
func (c *groupCache) key(e *index.Entry) uint64 {
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
func (c *groupCache) remembered(ctx context.Context, inputs []app.Input) ([]*groupDone, []app.Input) {
	if !c.known(inputs) {
		c.rec = c.ix.Recorder()
		return nil, inputs
	}
	entries, warnings, err := c.ix.Scan(ctx, inputs, nil)
	c.told(warnings)
	if err != nil {
		return nil, inputs
	}
	c.entries = entries
	owner := map[string]int{} // a log's entry: its session's, or a sub-agent's parent's
	for i := range entries {
		owner[entries[i].Path] = i
		for _, s := range entries[i].Subagents {
			owner[s] = i
		}
	}
	found := make([]*groupDone, len(entries))
	staleGroups := map[uint64]bool{}
	for i := range entries {
		e := &entries[i]
		if b, ok := c.ix.ScannedMemo(c.kind, c.key(e), append([]string{e.Path}, e.Subagents...)...); ok {
			if d, err := decodeGroupDone(b); err == nil {
				found[i] = &d
				continue
			}
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
	shares := make([]*groupDone, len(inputs))
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
func (c *groupCache) known(inputs []app.Input) bool {
	var paths []string
	for _, in := range inputs {
		if in.Err == nil {
			paths = append(paths, in.Path)
			paths = append(paths, in.Subagents...)
		}
	}
	return c.ix.Holds(paths) >= (len(paths)+1)/2
}

// keep holds d, reported for the input at path, to keep at the end.
func (c *groupCache) keep(path string, d groupDone) {
	if c.keptBytes > maxKeptBytes {
		return
	}
	b := encodeGroupDone(d)
	c.kept[path] = b
	c.keptBytes += len(b)
}

// finish keeps the shares reported, once the index has the records of
// inputs' logs (from the Recorder's reads, or the scan), and writes the
// cache file.
func (c *groupCache) finish(ctx context.Context, inputs []app.Input) {
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
		if b, ok := c.kept[e.Path]; ok {
			c.ix.SetMemo(e.Path, c.kind, c.key(e), b)
		}
	}
	if err := c.ix.Flush(); err != nil {
		c.warn(err) // read again next time
	}
}

// told passes on the warnings about the cache; those about logs are the
// report's own to give.
func (c *groupCache) told(warnings []index.Warning) {
	for _, w := range warnings {
		if w.Path == c.ix.CacheFile() {
			c.warn(w)
		}
	}
}

// encodeGroupDone writes d as decodeGroupDone reads it.
func encodeGroupDone(d groupDone) []byte {
	w := &memoWriter{}
	w.bytes(d.data)
	if d.part == nil {
		w.int(0)
		return w.b
	}
	w.int(1)
	p := d.part
	w.bool(p.any)
	w.int(int64(p.untimed))
	w.group(&p.total)
	w.int(int64(len(p.order)))
	for _, k := range p.order {
		w.group(p.keys[k])
	}
	return w.b
}

func decodeGroupDone(b []byte) (groupDone, error) {
	r := &memoReader{b: b}
	d := groupDone{data: r.bytes()}
	if r.int() == 1 {
		p := &part{keys: map[string]*Group{}}
		p.any = r.bool()
		p.untimed = int(r.int())
		p.total = r.group()
		n := r.count()
		for range n {
			g := r.group()
			p.keys[g.Key] = &g
			p.order = append(p.order, g.Key)
		}
		d.part = p
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errors.New("bytes after the share")
	}
	return d, r.err
}

type memoWriter struct{ b []byte }

func (w *memoWriter) int(v int64) { w.b = binary.AppendVarint(w.b, v) }
func (w *memoWriter) bool(v bool) {
	if v {
		w.int(1)
	} else {
		w.int(0)
	}
}
func (w *memoWriter) float(v float64) {
	w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v))
}
func (w *memoWriter) bytes(v []byte) {
	w.int(int64(len(v)))
	w.b = append(w.b, v...)
}
func (w *memoWriter) str(v string) { w.bytes([]byte(v)) }
func (w *memoWriter) strs(v []string) {
	w.int(int64(len(v)))
	for _, s := range v {
		w.str(s)
	}
}

// group writes a session's part of a group: CostUSD and CostUSDAfter are
// settled from the sums once the parts are merged, never in a part.
func (w *memoWriter) group(g *Group) {
	w.str(g.Key)
	for _, n := range []int64{int64(g.Sessions), int64(g.APICalls), g.Recorded.Input, g.Recorded.CacheCreation, g.Recorded.CacheRead, g.Recorded.Output,
		int64(g.sum.usage), int64(g.sum.copies), int64(g.sum.noUsage)} {
		w.int(n)
	}
	w.float(g.sum.priced)
	w.float(g.sum.pricedAfter)
	w.bool(g.sum.afterUnknown)
	w.strs(sortedKeys(g.sum.unpriced))
	w.bool(!g.last.IsZero())
	if !g.last.IsZero() {
		w.int(g.last.UnixNano())
	}
	w.bool(g.session != nil)
	if s := g.session; s != nil {
		w.str(s.id)
		w.str(s.project)
		w.str(s.agent)
		w.strs(s.models)
	}
}

// memoReader reads what memoWriter wrote; err is the first thing that
// went wrong, after which every read is zero.
type memoReader struct {
	b   []byte
	err error
}

var errShare = errors.New("kept share cut short")

func (r *memoReader) fail() {
	if r.err == nil {
		r.err = errShare
	}
	r.b = nil
}

func (r *memoReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count is a length, no more than the bytes left could hold.
func (r *memoReader) count() int {
	n := r.int()
	if n < 0 || n > int64(len(r.b)) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *memoReader) bool() bool { return r.int() == 1 }

func (r *memoReader) float() float64 {
	if len(r.b) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *memoReader) bytes() []byte {
	n := r.count()
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *memoReader) str() string { return string(r.bytes()) }

func (r *memoReader) strs() []string {
	n := r.count()
	var out []string
	for range n {
		out = append(out, r.str())
	}
	return out
}

func (r *memoReader) group() Group {
	var g Group
	g.Key = r.str()
	g.Sessions, g.APICalls = int(r.int()), int(r.int())
	g.Recorded.Input, g.Recorded.CacheCreation, g.Recorded.CacheRead, g.Recorded.Output = r.int(), r.int(), r.int(), r.int()
	g.sum.usage, g.sum.copies, g.sum.noUsage = int(r.int()), int(r.int()), int(r.int())
	g.sum.priced, g.sum.pricedAfter = r.float(), r.float()
	g.sum.afterUnknown = r.bool()
	if models := r.strs(); len(models) > 0 {
		g.sum.unpriced = map[string]bool{}
		for _, m := range models {
			g.sum.unpriced[m] = true
		}
	}
	if r.bool() {
		g.last = time.Unix(0, r.int())
	}
	if r.bool() {
		g.session = &sessionInfo{id: r.str(), project: r.str(), agent: r.str(), models: r.strs()}
	}
	return g
}

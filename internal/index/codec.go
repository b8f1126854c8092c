package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/spillway-dev/spillway/transcript"
)

// The cache payload is written field by field: unsigned varints for
// counts and sizes, zig-zag varints for signed figures, strings as a
// length and bytes, float64 as its 8 IEEE bytes, result sizes as deltas.
// BenchmarkCacheCodec measured it against gob and encoding/json.

type wbuf struct{ b []byte }

func (w *wbuf) u(v uint64)   { w.b = binary.AppendUvarint(w.b, v) }
func (w *wbuf) i(v int64)    { w.b = binary.AppendVarint(w.b, v) }
func (w *wbuf) n(v int)      { w.i(int64(v)) }
func (w *wbuf) f(v float64)  { w.b = binary.LittleEndian.AppendUint64(w.b, math.Float64bits(v)) }
func (w *wbuf) fix(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *wbuf) s(v string) {
	w.u(uint64(len(v)))
	w.b = append(w.b, v...)
}

func (w *wbuf) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *wbuf) time(t time.Time) {
	if t.IsZero() {
		w.bool(false)
		return
	}
	w.bool(true)
	w.i(t.UnixNano())
}

func (w *wbuf) strs(v []string) {
	w.u(uint64(len(v)))
	for _, s := range v {
		w.s(s)
	}
}

func (w *wbuf) tokens(t Tokens) {
	w.i(t.Input)
	w.i(t.CacheCreation)
	w.i(t.CacheRead)
	w.i(t.Output)
}

// rbuf reads what wbuf wrote; the first problem sticks and every later
// read gives zero, so a decoder checks err once at the end.
type rbuf struct {
	b   []byte
	err error
	// names are the strings many records repeat (formats, versions,
	// projects, models), each allocated once; sums are where summaries
	// are decoded into, a block at a time.
	names map[string]string
	sums  []fileSum
}

var errShort = errors.New("truncated record")

func (r *rbuf) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

func (r *rbuf) u() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) i() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(errShort)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) n() int { return int(r.i()) }

// count reads a length, refusing one longer than what is left: each
// element takes at least a byte, so no garbage makes a huge allocation.
func (r *rbuf) count() int {
	v := r.u()
	if v > uint64(len(r.b)) {
		r.fail(errShort)
		return 0
	}
	return int(v)
}

func (r *rbuf) fix() uint64 {
	if len(r.b) < 8 {
		r.fail(errShort)
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *rbuf) f() float64 { return math.Float64frombits(r.fix()) }

func (r *rbuf) s() string {
	n := r.count()
	v := string(r.b[:n])
	r.b = r.b[n:]
	return v
}

// bytes is the next length-prefixed bytes, in place: capped, so that
// appending to them copies.
func (r *rbuf) bytes() []byte {
	n := r.count()
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// name is s for a string that many records repeat: the first record's.
func (r *rbuf) name() string {
	n := r.count()
	b := r.b[:n]
	r.b = r.b[n:]
	if n == 0 {
		return ""
	}
	if v, ok := r.names[string(b)]; ok {
		return v
	}
	if r.names == nil {
		r.names = map[string]string{}
	}
	v := string(b)
	r.names[v] = v
	return v
}

// nameList is n strings read with name.
func (r *rbuf) nameList(n int) []string {
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.name()
	}
	return out
}

// newSum is a zero summary from the current block.
func (r *rbuf) newSum() *fileSum {
	if len(r.sums) == 0 {
		r.sums = make([]fileSum, 64)
	}
	f := &r.sums[0]
	r.sums = r.sums[1:]
	return f
}

func (r *rbuf) bool() bool {
	if len(r.b) < 1 {
		r.fail(errShort)
		return false
	}
	v := r.b[0]
	r.b = r.b[1:]
	if v > 1 {
		r.fail(errors.New("bad flag"))
	}
	return v == 1
}

func (r *rbuf) time() time.Time {
	if !r.bool() {
		return time.Time{}
	}
	return time.Unix(0, r.i()).UTC()
}

// deltas reads n ascending values written as the differences between
// them, one varint each: most of a cache's bytes, so a difference of one
// byte (most are) is read here without a call.
func (r *rbuf) deltas(n int) []int {
	out := make([]int, n)
	b, prev := r.b, 0
	for i := range out {
		if len(b) > 0 && b[0] < 0x80 {
			prev += int(b[0])
			b = b[1:]
		} else {
			v, k := binary.Uvarint(b)
			if k <= 0 {
				r.fail(errShort)
				return nil
			}
			prev += int(v)
			b = b[k:]
		}
		out[i] = prev
	}
	r.b = b
	return out
}

func (r *rbuf) tokens() Tokens {
	return Tokens{Input: r.i(), CacheCreation: r.i(), CacheRead: r.i(), Output: r.i()}
}

func (w *wbuf) sum(f *fileSum) {
	w.bool(f != nil)
	if f == nil {
		return
	}
	for _, s := range []string{string(f.Format), f.Version, f.ID, f.Title, f.Project, f.ParentID, string(f.Relation)} {
		w.s(s)
	}
	w.time(f.First)
	w.time(f.Last)
	w.strs(f.Models)
	w.n(f.Calls)
	w.n(f.Copied)
	w.n(f.RecordedCalls)
	w.tokens(f.Recorded)
	w.f(f.Priced)
	w.strs(f.Unpriced)
	w.u(uint64(len(f.ByModel)))
	for _, m := range f.ByModel {
		w.s(m.Model)
		w.n(m.APICalls)
		w.tokens(m.Recorded)
		w.f(m.CostUSD)
		w.bool(m.Priced)
	}
	w.u(uint64(len(f.ResultSizes)))
	prev := 0
	for _, n := range f.ResultSizes {
		w.u(uint64(n - prev))
		prev = n
	}
	w.i(f.ResultBytes)
	w.n(f.Compactions)
	w.n(f.Warnings)
	w.n(f.NoUsage)
	w.n(f.LowerBound)
	if f.Keys == nil && f.packedKeys != nil {
		w.u(uint64(len(f.packedKeys) / 8))
		w.b = append(w.b, f.packedKeys...)
		return
	}
	w.u(uint64(len(f.Keys)))
	for _, k := range f.Keys {
		w.fix(k)
	}
}

func (r *rbuf) sum() *fileSum {
	if !r.bool() {
		return nil
	}
	f := r.newSum()
	f.Format = transcript.Format(r.name())
	f.Version, f.ID, f.Title, f.Project, f.ParentID = r.name(), r.s(), r.s(), r.name(), r.s()
	f.Relation = transcript.Relation(r.name())
	f.First, f.Last = r.time(), r.time()
	f.Models = r.nameList(r.count())
	f.Calls, f.Copied, f.RecordedCalls = r.n(), r.n(), r.n()
	f.Recorded = r.tokens()
	f.Priced = r.f()
	f.Unpriced = r.nameList(r.count())
	if n := r.count(); n > 0 {
		f.ByModel = make([]fileModel, n)
		for i := range f.ByModel {
			m := &f.ByModel[i]
			m.Model, m.APICalls, m.Recorded, m.CostUSD, m.Priced = r.name(), r.n(), r.tokens(), r.f(), r.bool()
		}
	}
	if n := r.count(); n > 0 {
		f.ResultSizes = r.deltas(n)
		f.Results, f.Largest = n, f.ResultSizes[n-1]
	}
	f.ResultBytes = r.i()
	f.Compactions, f.Warnings = r.n(), r.n()
	f.NoUsage, f.LowerBound = r.n(), r.n()
	if n := r.count(); n > 0 {
		if len(r.b) < 8*n {
			r.fail(errShort)
			return f
		}
		f.packedKeys = r.b[: 8*n : 8*n]
		r.b = r.b[8*n:]
	}
	return f
}

// encodePayload writes d: the header, then the files in path order.
func encodePayload(d *cacheData) []byte { return appendPayload(nil, d) }

// appendPayload appends d's payload to b, which it first grows by about
// the payload's size: grown as it was written, the 15 MB payload of a
// month's grouped report was copied four times over, two fifths of
// writing it.
func appendPayload(b []byte, d *cacheData) []byte {
	w := &wbuf{b: slices.Grow(b, payloadSize(d))}
	w.s(d.Header.Spillway)
	w.fix(d.Header.Prices)
	w.s(d.Header.Read)
	w.fix(d.LastScan)
	paths := slices.Sorted(maps.Keys(d.Files))
	w.u(uint64(len(paths)))
	for _, p := range paths {
		rec := d.Files[p]
		w.s(p)
		k := rec.Key
		w.i(k.Size)
		w.i(k.ModTime)
		w.fix(k.Inode)
		w.n(k.HeadLen)
		w.fix(k.Head)
		w.fix(rec.Comp)
		w.sum(rec.Own)
		w.sum(rec.Final)
		w.u(uint64(len(rec.Memos)))
		for _, m := range rec.Memos {
			w.s(m.kind)
			w.fix(m.key)
			w.u(uint64(len(m.value)))
			w.b = append(w.b, m.value...)
		}
	}
	return w.b
}

func decodePayload(b []byte) (*cacheData, error) {
	r := &rbuf{b: b}
	d := &cacheData{Files: map[string]*cacheRecord{}}
	d.Header.Spillway = r.s()
	d.Header.Prices = r.fix()
	d.Header.Read = r.s()
	d.LastScan = r.fix()
	var recs []cacheRecord // allocated a block at a time
	files := r.count()
	d.Files = make(map[string]*cacheRecord, min(files, 1<<16))
	for n := files; n > 0 && r.err == nil; n-- {
		p := r.s()
		if len(recs) == 0 {
			recs = make([]cacheRecord, min(n, 256))
		}
		rec := &recs[0]
		recs = recs[1:]
		rec.Key = recordKey{Size: r.i(), ModTime: r.i(), Inode: r.fix(), HeadLen: r.n(), Head: r.fix()}
		rec.Comp = r.fix()
		rec.Own, rec.Final = r.sum(), r.sum()
		if memos := r.count(); memos > 0 {
			if memos > maxMemos {
				r.fail(fmt.Errorf("%d memos of one file", memos))
			}
			for ; memos > 0 && r.err == nil; memos-- {
				// The value is the file's own bytes, as a summary's keys
				// are: a report's shares are most of a cache file, and
				// copied (twice, through a string) they were the memory
				// a reopening touched first, 0.1 s of page faults.
				rec.Memos = append(rec.Memos, memo{kind: r.name(), key: r.fix(), value: r.bytes()})
			}
		}
		if rec.Own == nil {
			r.fail(errors.New("record without a summary"))
		}
		d.Files[p] = rec
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errors.New("bytes after the last record")
	}
	if r.err != nil {
		return nil, r.err
	}
	return d, nil
}

// payloadSize is about the bytes appendPayload writes of d: what each
// record holds of any size (its path, keys, result sizes and memos) and a
// little more for the rest.
func payloadSize(d *cacheData) int {
	n := 1 << 10
	sum := func(f *fileSum) int {
		if f == nil {
			return 0
		}
		return 256 + 8*max(len(f.Keys), len(f.packedKeys)/8) + 3*len(f.ResultSizes)
	}
	for p, r := range d.Files {
		n += 64 + len(p) + sum(r.Own) + sum(r.Final)
		for _, m := range r.Memos {
			n += 32 + len(m.kind) + len(m.value)
		}
	}
	return n
}

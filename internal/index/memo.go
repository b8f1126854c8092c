package index

import (
	"os"
	"slices"
)

// A caller may keep with a file's record what it worked out from the file
// and would take long to work out again: the session list keeps each
// session's figures under the last policy it replayed, so that a list
// reopened shows them without reading a log. A memo lives as long as the
// record: a change of the file, or of anything the cache's header holds
// (spillway's version, the prices, the read options), lets it go; the
// caller's key says what else the value depends on.

// memosPerKind bounds the memos of one kind a file keeps, the last kept
// staying, so that a few policies tried after the one a list opens under
// leave its figures: the list computes ahead those of the two policies a
// key away (d, s) once its chart is in, and a key then adds the next
// two's; maxMemos bounds all of a file's, as read, and maxMemoBytes a
// memo's value: a cache file is read whole, at every start.
// A grouped JSON report keeps each session's summary, 5-6 KB, 18 KB with
// three sub-agents on the 2 GB fleet.
const (
	memosPerKind = 5
	maxMemos     = 16
	maxMemoBytes = 64 << 10
)

// Memo is the value kept for the file at files[0] under kind, if it was
// kept with key and each of files is still as the index last read it: a
// file written since, and not scanned again, is not taken for the one
// read.
func (ix *Index) Memo(kind string, key uint64, files ...string) ([]byte, bool) {
	if len(files) == 0 {
		return nil, false
	}
	value, recorded := ix.memo(kind, key, files)
	if value == nil {
		return nil, false
	}
	for i, f := range files {
		if !ix.unchanged(f, recorded[i]) {
			return nil, false
		}
	}
	return value, true
}

// unchanged tells whether the file at path is still as recorded. One the
// last Scan found so needs only a stat to tell it was not written since:
// its head was read then. Opening and reading the heads again was a
// quarter of the processor time of a reopened list's first half-second
// (2,700 files looked up once for its totals and once for its chart).
func (ix *Index) unchanged(path string, recorded fileKey) bool {
	ix.mu.Lock()
	s, scanned := ix.seen[path]
	ix.mu.Unlock()
	if scanned && s.key.same(recorded) {
		info, err := os.Stat(path)
		return err == nil && info.Mode().IsRegular() && statKey(info).sameStat(recorded)
	}
	k, err := stat(path)
	return err == nil && k.same(recorded)
}

// ScannedMemo is Memo for a caller that takes the files as the last Scan
// found them: each is compared with what that Scan read, not looked at
// again. A report that has just scanned its logs reports them as found:
// looking at the fleet's 2,700 logs again (a stat and 4 KiB each) made a
// report run again 0.36-0.37 s against 0.28-0.31 s.
func (ix *Index) ScannedMemo(kind string, key uint64, files ...string) ([]byte, bool) {
	if len(files) == 0 {
		return nil, false
	}
	value, recorded := ix.memo(kind, key, files)
	if value == nil {
		return nil, false
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for i, f := range files {
		if s, ok := ix.seen[f]; !ok || !s.key.same(recorded[i]) {
			return nil, false
		}
	}
	return value, true
}

// memo is the value kept for files[0] under kind and key, and the keys
// the files were recorded with; nil when there is none.
func (ix *Index) memo(kind string, key uint64, files []string) ([]byte, []fileKey) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.cache == nil {
		return nil, nil
	}
	var value []byte
	if r := ix.cache.data.Files[files[0]]; r != nil {
		for _, m := range r.Memos {
			if m.kind == kind && m.key == key {
				value = m.value
			}
		}
	}
	if value == nil {
		return nil, nil
	}
	recorded := make([]fileKey, len(files))
	for i, f := range files {
		r := ix.cache.data.Files[f]
		if r == nil {
			return nil, nil
		}
		recorded[i] = r.Key.key()
	}
	return value, recorded
}

// SetMemo keeps value for the file at path under kind and key, in place of
// what the two held, of the oldest of kind past memosPerKind, and of the
// oldest of all past maxMemos; nothing is kept for a file the index holds
// no record of, or a value over maxMemoBytes. The cache file takes it at
// the next write (a Scan's, or Flush).
func (ix *Index) SetMemo(path, kind string, key uint64, value []byte) {
	if len(value) > maxMemoBytes {
		return
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.cache == nil {
		return
	}
	r := ix.cache.data.Files[path]
	if r == nil {
		return
	}
	memos := slices.DeleteFunc(slices.Clone(r.Memos), func(m memo) bool { return m.kind == kind && m.key == key })
	memos = append(memos, memo{kind: kind, key: key, value: slices.Clone(value)})
	for countKind(memos, kind) > memosPerKind {
		oldest := slices.IndexFunc(memos, func(m memo) bool { return m.kind == kind })
		memos = slices.Delete(memos, oldest, oldest+1)
	}
	// And of all kinds: a record of more is read as a damaged cache,
	// every figure of every log lost (five kinds of five did it).
	memos = memos[max(0, len(memos)-maxMemos):]
	r.Memos = memos
	ix.cache.dirty = true
}

func countKind(memos []memo, kind string) int {
	n := 0
	for _, m := range memos {
		if m.kind == kind {
			n++
		}
	}
	return n
}

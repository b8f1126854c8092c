package index

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
)

// keyIndex is every file's reconciliation keys, sorted, kept by an Index
// between its scans: a rescan after one session grew sorts that file's
// keys and merges them in, where sorting all of them again (half a
// million on 2,000 sessions) was a quarter of the rescan. A file's keys
// are those of its summary, so a file whose summary is the one of the
// last scan (the same record, recalled or cached) keeps its keys in place.
// Guarded by the Index's mu.
type keyIndex struct {
	ids  map[string]int32 // a file's path: its number, for good
	owns []*fileSum       // by number: the summary whose keys are held, nil for none
	// keys and files are the held keys in ascending order and the number
	// of the file of each: 12 bytes a key.
	keys  []uint64
	files []int32
}

// keyView is the keys of one scan's files, each told by its scan index.
type keyView struct {
	keys  []uint64
	files []int32
	at    []int32 // by file number: its index in the scan
}

func (v keyView) scanIndex(i int) int { return int(v.at[v.files[i]]) }

// update makes the index hold the keys of files, those with a summary
// (own), and no others, and returns them. A changed file's keys are
// compared with those held: a grown session's new keys are inserted and
// its gone ones removed, each run of the arrays between them moved once.
func (ki *keyIndex) update(files []scanFile) keyView {
	if ki.ids == nil {
		ki.ids = map[string]int32{}
	}
	var add, remove []ref
	first := len(ki.keys) == 0 // nothing held: every key is sorted at once
	n := len(ki.owns)
	present := make([]bool, n, n+len(files))
	at := make([]int32, n, n+len(files))
	for i := range files {
		f := &files[i]
		if f.own == nil {
			continue
		}
		id, ok := ki.ids[f.path]
		if !ok {
			id = int32(len(ki.owns))
			ki.ids[f.path] = id
			ki.owns = append(ki.owns, nil)
			present, at = append(present, false), append(at, 0)
		}
		present[id], at[id] = true, int32(i)
		if old := ki.owns[id]; old != f.own {
			if !first {
				add, remove = keyChanges(add, remove, id, old, f.own)
			}
			ki.owns[id] = f.own
		}
	}
	for id, own := range ki.owns {
		if own != nil && !present[id] {
			if !first {
				add, remove = keyChanges(add, remove, int32(id), own, nil)
			}
			ki.owns[id] = nil
		}
	}
	if first || !ki.remove(remove) {
		ki.rebuild()
	} else {
		slices.SortFunc(add, func(a, b ref) int { return cmp.Compare(a.key, b.key) })
		ki.insert(add)
	}
	return keyView{keys: ki.keys, files: ki.files, at: at}
}

type ref struct {
	key  uint64
	file int32
}

// keyChanges adds to add and remove what the file id's keys gain and
// lose from old to now (either nil for none); both are sorted and unique.
func keyChanges(add, remove []ref, id int32, old, now *fileSum) ([]ref, []ref) {
	var was, is []uint64
	if old != nil {
		was = old.keys()
	}
	if now != nil {
		is = now.keys()
	}
	i, j := 0, 0
	for i < len(was) || j < len(is) {
		switch {
		case j == len(is) || (i < len(was) && was[i] < is[j]):
			remove = append(remove, ref{was[i], id})
			i++
		case i == len(was) || is[j] < was[i]:
			add = append(add, ref{is[j], id})
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return add, remove
}

// remove takes refs out of the held keys; false when one is not held.
func (ki *keyIndex) remove(refs []ref) bool {
	if len(refs) == 0 {
		return true
	}
	pos := make([]int, 0, len(refs))
	for _, r := range refs {
		i, _ := slices.BinarySearch(ki.keys, r.key)
		for ; i < len(ki.keys) && ki.keys[i] == r.key && ki.files[i] != r.file; i++ {
		}
		if i == len(ki.keys) || ki.keys[i] != r.key {
			return false
		}
		pos = append(pos, i)
	}
	slices.Sort(pos)
	w := pos[0]
	for j, p := range pos {
		end := len(ki.keys)
		if j+1 < len(pos) {
			end = pos[j+1]
		}
		copy(ki.files[w:], ki.files[p+1:end])
		w += copy(ki.keys[w:], ki.keys[p+1:end])
	}
	ki.keys, ki.files = ki.keys[:w], ki.files[:w]
	return true
}

// insert puts refs, sorted, among the held keys, from the last: each
// held key after an insertion point is moved once.
func (ki *keyIndex) insert(refs []ref) {
	if len(refs) == 0 {
		return
	}
	hi := len(ki.keys)
	n := hi + len(refs)
	ki.keys, ki.files = slices.Grow(ki.keys, len(refs))[:n], slices.Grow(ki.files, len(refs))[:n]
	for j := len(refs) - 1; j >= 0; j-- {
		k := refs[j].key
		p, _ := slices.BinarySearch(ki.keys[:hi], k+1) // after the keys equal to k
		if k == ^uint64(0) {
			p = hi
		}
		copy(ki.keys[p+j+1:], ki.keys[p:hi])
		copy(ki.files[p+j+1:], ki.files[p:hi])
		ki.keys[p+j], ki.files[p+j] = k, refs[j].file
		hi = p
	}
}

// rebuild sorts every held file's keys again. The keys are hashes,
// spread evenly: they are put straight into buckets by their leading
// bits, two to four to a bucket, and each bucket sorted, a fifth of the
// time of gathering them and sorting them by comparison (10 against
// 52 ms for 350,000 keys, BenchmarkKeyIndexRebuild), which was most of
// what a first scan did between reading its files and reconciling them.
func (ki *keyIndex) rebuild() {
	n := 0
	for _, own := range ki.owns {
		if own != nil {
			n += len(own.keys())
		}
	}
	ki.keys, ki.files = slices.Grow(ki.keys[:0], n)[:n], slices.Grow(ki.files[:0], n)[:n]
	lead := min(max(bits.Len(uint(n))-2, 0), 20)
	shift := 64 - lead // 64 (one bucket) shifts every key to 0
	start := make([]int32, 1<<lead+1)
	for _, own := range ki.owns {
		if own != nil {
			for _, k := range own.keys() {
				start[k>>shift+1]++
			}
		}
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	next := slices.Clone(start[:len(start)-1])
	for id, own := range ki.owns {
		if own != nil {
			for _, k := range own.keys() {
				p := next[k>>shift]
				ki.keys[p], ki.files[p] = k, int32(id)
				next[k>>shift]++
			}
		}
	}
	for b := 0; b+1 < len(start); b++ {
		run := keyRun{ki.keys[start[b]:start[b+1]], ki.files[start[b]:start[b+1]]}
		if len(run.keys) > 12 { // keys not spread as hashes are, or few buckets
			sort.Sort(run)
			continue
		}
		for i := 1; i < len(run.keys); i++ {
			for j := i; j > 0 && run.keys[j] < run.keys[j-1]; j-- {
				run.Swap(j, j-1)
			}
		}
	}
}

// keyRun is a run of the held keys with their files, sorted by key.
type keyRun struct {
	keys  []uint64
	files []int32
}

func (r keyRun) Len() int           { return len(r.keys) }
func (r keyRun) Less(i, j int) bool { return r.keys[i] < r.keys[j] }
func (r keyRun) Swap(i, j int) {
	r.keys[i], r.keys[j] = r.keys[j], r.keys[i]
	r.files[i], r.files[j] = r.files[j], r.files[i]
}

package index

import (
	"cmp"
	"slices"
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
// (own), and no others, and returns them.
func (ki *keyIndex) update(files []scanFile) keyView {
	if ki.ids == nil {
		ki.ids = map[string]int32{}
	}
	type ref struct {
		key  uint64
		file int32
	}
	var add []ref
	n := len(ki.owns)
	present, drop := make([]bool, n, n+len(files)), make([]bool, n, n+len(files))
	at := make([]int32, n, n+len(files))
	dropped := false
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
			present, drop, at = append(present, false), append(drop, false), append(at, 0)
		}
		present[id], at[id] = true, int32(i)
		if ki.owns[id] == f.own {
			continue
		}
		if ki.owns[id] != nil {
			drop[id], dropped = true, true
		}
		ki.owns[id] = f.own
		for _, k := range f.own.keys() {
			add = append(add, ref{k, id})
		}
	}
	for id, own := range ki.owns {
		if own != nil && !present[id] {
			drop[id], dropped = true, true
			ki.owns[id] = nil
		}
	}
	if len(add) > 0 || dropped {
		slices.SortFunc(add, func(a, b ref) int { return cmp.Compare(a.key, b.key) })
		n := len(ki.keys) + len(add)
		keys, ids := make([]uint64, 0, n), make([]int32, 0, n)
		j := 0
		for i, k := range ki.keys {
			if drop[ki.files[i]] {
				continue
			}
			for ; j < len(add) && add[j].key < k; j++ {
				keys, ids = append(keys, add[j].key), append(ids, add[j].file)
			}
			keys, ids = append(keys, k), append(ids, ki.files[i])
		}
		for ; j < len(add); j++ {
			keys, ids = append(keys, add[j].key), append(ids, add[j].file)
		}
		ki.keys, ki.files = keys, ids
	}
	return keyView{keys: ki.keys, files: ki.files, at: at}
}

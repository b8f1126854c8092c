package transcript

// hashTable maps 64-bit hashes to ints by open addressing, for the Claude
// reader's tables of line ids and responses, which every line reaches:
// less than half the time of a map[uint64]int (BenchmarkHashTable), the
// keys being hashes already. Key 0 marks an empty slot, so the hash 0 is kept as 1: two ids
// then share a key, as likely as any other collision of 64-bit hashes.
type hashTable struct {
	keys []uint64
	vals []int32
	n    int
}

// newHashTable returns a table that takes about n keys before it grows.
// It is kept at most half full: a new key, which every line brings, then
// looks at 2.5 slots on average, where a table three quarters full looks
// at 8.5.
func newHashTable(n int) hashTable {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return hashTable{keys: spareKeys.get(size)[:size], vals: spareVals.get(size)[:size]}
}

// release gives the table's arrays to the spares; t is empty after.
func (t *hashTable) release() {
	spareKeys.put(t.keys)
	spareVals.put(t.vals)
	*t = hashTable{}
}

// slot returns where key is, or the empty slot where it would go.
func (t *hashTable) slot(key uint64) int {
	mask := len(t.keys) - 1
	i := int(key) & mask
	for t.keys[i] != key && t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	return i
}

// get returns the value of key.
func (t *hashTable) get(key uint64) (v int, ok bool) {
	if key == 0 {
		key = 1
	}
	if len(t.keys) == 0 {
		return 0, false
	}
	i := t.slot(key)
	return int(t.vals[i]), t.keys[i] != 0
}

// put sets key's value to v and reports whether key was there before,
// its value then replaced.
func (t *hashTable) put(key uint64, v int) (had bool) {
	if key == 0 {
		key = 1
	}
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	i := t.slot(key)
	had = t.keys[i] != 0
	if !had {
		t.keys[i] = key
		t.n++
	}
	t.vals[i] = int32(v)
	return had
}

func (t *hashTable) grow() {
	old, vals := t.keys, t.vals
	size := max(2*len(old), 16)
	t.keys, t.vals = spareKeys.get(size)[:size], spareVals.get(size)[:size]
	for j, k := range old {
		if k != 0 {
			i := t.slot(k)
			t.keys[i], t.vals[i] = k, vals[j]
		}
	}
	spareKeys.put(old)
	spareVals.put(vals)
}

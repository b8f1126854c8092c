package transcript

import (
	"math/rand/v2"
	"testing"
)

// TestHashTable checks the table against a map: keys that share a slot,
// growth from the smallest size, replaced values, and the key 0, kept as 1.
func TestHashTable(t *testing.T) {
	for _, c := range []struct {
		name string
		size int
		keys func(i int) uint64
	}{
		{"random", 0, func(int) uint64 { return rand.Uint64() }},
		{"one slot", 16, func(i int) uint64 { return uint64(i) << 40 }}, // all start at slot 0
		{"few keys, repeated", 1000, func(i int) uint64 { return uint64(i % 37) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			table := newHashTable(c.size)
			want := map[uint64]int{}
			for i := range 5000 {
				k := c.keys(i)
				key := k
				if key == 0 {
					key = 1
				}
				_, had := want[key]
				if got := table.put(k, i); got != had {
					t.Fatalf("put %#x: had %v, want %v", k, got, had)
				}
				want[key] = i
			}
			for k, v := range want {
				if got, ok := table.get(k); !ok || got != v {
					t.Errorf("get %#x = %d, %v; want %d", k, got, ok, v)
				}
			}
			if table.n != len(want) {
				t.Errorf("%d keys, want %d", table.n, len(want))
			}
			for range 100 {
				if k := rand.Uint64() | 1<<63; want[k] == 0 {
					if _, ok := table.get(k); ok {
						t.Errorf("get %#x found a key never put", k)
					}
				}
			}
		})
	}
	var empty hashTable
	if _, ok := empty.get(5); ok {
		t.Error("the zero table has a key")
	}
	if empty.put(0, 7) {
		t.Error("the zero table had key 0")
	}
	if v, ok := empty.get(1); !ok || v != 7 {
		t.Errorf("key 0 is not kept as 1: %d, %v", v, ok)
	}
}

// BenchmarkHashTable inserts and finds as many hashes as a session of
// 4,000 lines has, by the table and by a map.
func BenchmarkHashTable(b *testing.B) {
	keys := make([]uint64, 4000)
	for i := range keys {
		keys[i] = rand.Uint64()
	}
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			t := newHashTable(len(keys))
			for i, k := range keys {
				t.put(k, i)
			}
			for _, k := range keys {
				t.get(k)
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			m := make(map[uint64]int, len(keys))
			for i, k := range keys {
				m[k] = i
			}
			for _, k := range keys {
				_ = m[k]
			}
		}
	})
}

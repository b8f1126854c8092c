package index

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/app"
)

// TestKeysKeptBetweenScans: one Index rescanning as sessions start,
// resume one another, are rewritten and go gives at each step what a
// fresh scan gives, its kept keys being exactly the keys of the files
// read, sorted.
func TestKeysKeptBetweenScans(t *testing.T) {
	root := t.TempDir()
	cacheDir, dir := filepath.Join(root, "cache"), filepath.Join(root, "logs")
	a := writeClaude(t, filepath.Join(dir, "a.jsonl"), "a", call{msg: "a1", at: at(1), input: 1, result: "x"}, call{msg: "a2", at: at(2), input: 2, result: "y"})
	b := writeClaude(t, filepath.Join(dir, "b.jsonl"), "b", call{msg: "b1", at: at(3), input: 3, result: "z"})
	ix, err := Open(Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		change func()
		copied map[string]int // copies each file's entry holds
	}{
		{"two sessions apart", func() {}, map[string]int{"a": 0, "b": 0}},
		{"b resumes a", func() {
			writeClaude(t, b, "a", call{msg: "a1", at: at(1), input: 1, result: "x"})
		}, map[string]int{"a": 0, "b": 1}},
		{"c starts, repeating a2", func() {
			writeClaude(t, filepath.Join(dir, "c.jsonl"), "c", call{msg: "a2", at: at(2), input: 2, result: "y"}, call{msg: "c1", at: at(5), input: 5, result: "w"})
		}, map[string]int{"a": 0, "b": 1, "c": 1}},
		{"b rewritten without the copy", func() {
			os.Remove(b)
			writeClaude(t, b, "b", call{msg: "b1", at: at(3), input: 3, result: "z"}, call{msg: "b2", at: at(4), input: 4, result: "v"})
		}, map[string]int{"a": 0, "b": 0, "c": 1}},
		{"a goes", func() { os.Remove(a) }, map[string]int{"b": 0, "c": 0}},
	}
	for _, st := range steps {
		st.change()
		got, w := scanWith(t, ix, dir)
		want, fw := scanDir(t, Options{NoCache: true}, dir)
		if diff := gocmp.Diff(want, got, costsClose); diff != "" || len(w) != len(fw) {
			t.Errorf("%s: rescan differs from a fresh scan (-fresh +rescan):\n%s\nwarnings %v", st.name, diff, w)
		}
		copied := map[string]int{}
		for _, e := range got {
			copied[filepath.Base(e.Path[:len(e.Path)-len(".jsonl")])] = e.CopiedCalls
		}
		if diff := gocmp.Diff(st.copied, copied); diff != "" {
			t.Errorf("%s: copies (-want +got):\n%s", st.name, diff)
		}
		var all []uint64
		for _, f := range ix.lastFiles {
			if f.own != nil {
				all = append(all, f.own.keys()...)
			}
		}
		slices.Sort(all)
		if !slices.Equal(all, ix.keyed.keys) {
			t.Errorf("%s: kept keys %x, want the files' %x", st.name, ix.keyed.keys, all)
		}
	}
}

// TestScanChanged: a rescan told which files may have changed opens those
// alone; the others are as the last scan found them, even when they did
// change (the caller said they did not), until a scan looks at them.
func TestScanChanged(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	a := writeClaude(t, filepath.Join(dir, "a.jsonl"), "a", call{msg: "a1", at: at(1), input: 1, result: "x"})
	b := writeClaude(t, filepath.Join(dir, "b.jsonl"), "b", call{msg: "b1", at: at(2), input: 2, result: "y"})
	writeClaude(t, filepath.Join(dir, "c.jsonl"), "c", call{msg: "c1", at: at(3), input: 3, result: "z"})
	ix, err := Open(Options{CacheDir: filepath.Join(root, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := app.Resolve([]string{dir}, app.Env{})
	if err != nil {
		t.Fatal(err)
	}
	var opened []string // a name for each stat and each read of the file
	var mu sync.Mutex
	note := func(path string) {
		mu.Lock()
		opened = append(opened, filepath.Base(path))
		mu.Unlock()
	}
	oldStat, oldRead := statFile, afterStat
	statFile = func(path string, buf []byte) (fileKey, error) {
		note(path)
		return oldStat(path, buf)
	}
	afterStat = note
	t.Cleanup(func() { statFile, afterStat = oldStat, oldRead })
	scan := func(changed func(string) bool) map[string]int {
		t.Helper()
		opened = nil
		entries, w, err := ix.ScanChanged(context.Background(), inputs, changed, nil)
		if err != nil || len(w) > 0 {
			t.Fatal(err, w)
		}
		calls := map[string]int{}
		for _, e := range entries {
			calls[filepath.Base(e.Path)] = e.APICalls
		}
		return calls
	}
	scan(nil)
	writeClaude(t, a, "a", call{msg: "a2", at: at(4), input: 4, result: "w"})
	writeClaude(t, b, "b", call{msg: "b2", at: at(5), input: 5, result: "v"})
	got := scan(func(p string) bool { return p == a })
	if diff := gocmp.Diff(map[string]int{"a.jsonl": 2, "b.jsonl": 1, "c.jsonl": 1}, got); diff != "" {
		t.Errorf("told a alone changed, calls (-want +got):\n%s", diff)
	}
	slices.Sort(opened)
	if want := []string{"a.jsonl", "a.jsonl"}; !slices.Equal(opened, want) { // its stat, its read
		t.Errorf("told a alone changed, opened %v; want %v", opened, want)
	}
	if got := scan(nil); got["b.jsonl"] != 2 || len(opened) != 3+1 {
		t.Errorf("looking at every file: b has %d calls (want 2), %d files opened (want 3, and b read)", got["b.jsonl"], len(opened))
	}
	want, _ := scanDir(t, Options{NoCache: true}, dir)
	entries, _, _ := ix.ScanChanged(context.Background(), inputs, func(string) bool { return false }, nil)
	byPath := func(a, b Entry) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(want, byPath)
	slices.SortFunc(entries, byPath)
	if diff := gocmp.Diff(want, entries, costsClose); diff != "" {
		t.Errorf("nothing changed since (-fresh +rescan):\n%s", diff)
	}
}

// TestKeyIndexUpdate: files gaining, losing and changing keys in 200
// rounds, some sharing keys and one holding the largest key there is; after
// each round the index holds exactly the keys of the files, sorted, each
// with its file.
func TestKeyIndexUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ki keyIndex
	sums := map[string]*fileSum{}
	for round := range 200 {
		for range 1 + rng.IntN(3) {
			path := fmt.Sprintf("f%d", rng.IntN(12))
			switch rng.IntN(4) {
			case 0:
				delete(sums, path) // gone
			case 1: // grown: its keys and some more
				var keys []uint64
				if s := sums[path]; s != nil {
					keys = slices.Clone(s.Keys)
				}
				for range rng.IntN(4) {
					keys = append(keys, uint64(rng.IntN(60)))
				}
				slices.Sort(keys)
				sums[path] = &fileSum{Keys: slices.Compact(keys)}
			default: // rewritten
				var keys []uint64
				for range rng.IntN(8) {
					keys = append(keys, uint64(rng.IntN(60)))
				}
				if rng.IntN(5) == 0 {
					keys = append(keys, ^uint64(0))
				}
				slices.Sort(keys)
				sums[path] = &fileSum{Keys: slices.Compact(keys)}
			}
		}
		var files []scanFile
		for p, s := range sums {
			files = append(files, scanFile{path: p, own: s})
		}
		files = append(files, scanFile{path: "unread"})
		v := ki.update(files)
		type pair struct {
			key  uint64
			path string
		}
		var want, got []pair
		for _, f := range files {
			if f.own != nil {
				for _, k := range f.own.Keys {
					want = append(want, pair{k, f.path})
				}
			}
		}
		for i, k := range v.keys {
			got = append(got, pair{k, files[v.scanIndex(i)].path})
		}
		byKey := func(a, b pair) int {
			if a.key != b.key {
				return cmp.Compare(a.key, b.key)
			}
			return strings.Compare(a.path, b.path)
		}
		if !slices.IsSortedFunc(got, func(a, b pair) int { return cmp.Compare(a.key, b.key) }) {
			t.Fatalf("round %d: keys out of order: %v", round, got)
		}
		slices.SortFunc(want, byKey)
		slices.SortFunc(got, byKey)
		if !slices.Equal(want, got) {
			t.Fatalf("round %d: held %v, want %v", round, got, want)
		}
	}
}

// TestKeyIndexFirstScan: a first scan's keys, however they are spread,
// are held in order, each with its file.
func TestKeyIndexFirstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name string
		key  func() uint64
	}{
		{"hashes", rng.Uint64},
		{"small numbers", func() uint64 { return uint64(rng.IntN(5000)) }},
		{"few values", func() uint64 { return []uint64{0, 7, ^uint64(0)}[rng.IntN(3)] }},
		{"one leading bucket", func() uint64 { return 1<<63 | uint64(rng.IntN(1<<20)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []scanFile
			type pair struct {
				key  uint64
				file int
			}
			var want []pair
			for i := range 40 {
				var keys []uint64
				for range rng.IntN(400) {
					keys = append(keys, tt.key())
				}
				slices.Sort(keys)
				keys = slices.Compact(keys)
				files = append(files, scanFile{path: fmt.Sprint(i), own: &fileSum{Keys: keys}})
				for _, k := range keys {
					want = append(want, pair{k, i})
				}
			}
			var ki keyIndex
			v := ki.update(files)
			var got []pair
			for i, k := range v.keys {
				got = append(got, pair{k, v.scanIndex(i)})
			}
			if !slices.IsSortedFunc(got, func(a, b pair) int { return cmp.Compare(a.key, b.key) }) {
				t.Fatal("keys out of order")
			}
			byKeyFile := func(a, b pair) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.file, b.file)) }
			slices.SortFunc(want, byKeyFile)
			slices.SortFunc(got, byKeyFile)
			if !slices.Equal(want, got) {
				t.Fatalf("held %d keys, want %d, or not the same", len(got), len(want))
			}
		})
	}
}

// BenchmarkKeyIndexRebuild: a first scan's 350,000 keys of 1,400 files
// (the generated fleet's Claude Code sessions), held in order, against
// gathering them and sorting them by comparison.
func BenchmarkKeyIndexRebuild(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	files := make([]scanFile, 1400)
	for i := range files {
		keys := make([]uint64, 250)
		for j := range keys {
			keys[j] = rng.Uint64()
		}
		slices.Sort(keys)
		files[i] = scanFile{path: fmt.Sprint(i), own: &fileSum{Keys: keys}}
	}
	b.Run("buckets", func(b *testing.B) {
		for b.Loop() {
			var ki keyIndex
			ki.update(files)
		}
	})
	b.Run("comparison", func(b *testing.B) {
		for b.Loop() {
			var all []ref
			for i, f := range files {
				for _, k := range f.own.Keys {
					all = append(all, ref{k, int32(i)})
				}
			}
			slices.SortFunc(all, func(a, b ref) int { return cmp.Compare(a.key, b.key) })
		}
	})
}

package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// arenaInputs are logs of every format, two generated Claude Code sessions
// large enough for their arrays to be kept, and a Codex rollout.
func arenaInputs(t *testing.T) map[string][]byte {
	t.Helper()
	inputs := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "transcripts", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "claude", "*.jsonl"))
	for _, p := range append(paths, more...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[p] = data
	}
	// 4,500 calls fill two result arrays of the largest class, which a
	// second read then takes from the arena one after the other.
	for i, calls := range []int{4500, 300} {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, uint64(i+1), calls, 256); err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Join("generated", string(rune('a'+i))+".jsonl")] = buf.Bytes()
	}
	inputs["codex.jsonl"] = generatedCodex(t, 200)
	return inputs
}

// TestArenaReadsAsNew: sessions read one after another with one Arena,
// Reset between them, are those read without one, in every mode, in any
// order; and a session read again takes its arrays from the Arena.
func TestArenaReadsAsNew(t *testing.T) {
	inputs := arenaInputs(t)
	var names []string
	for name := range inputs {
		names = append(names, name)
	}
	for _, mode := range []struct {
		name string
		opt  Options
	}{{"texts", Options{}}, {"sizes-only", Options{SizesOnly: true}}, {"totals-only", Options{SizesOnly: true, TotalsOnly: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			want := map[string]*Session{}
			for _, name := range names {
				s, err := Read(bytes.NewReader(inputs[name]), name, mode.opt)
				if err != nil {
					t.Fatal(err)
				}
				want[name] = s
			}
			var arena Arena
			opt := mode.opt
			opt.Arena = &arena
			for round := range 2 { // the second from arrays the first used
				for i := range names {
					name := names[(i+round)%len(names)]
					got, err := Read(bytes.NewReader(inputs[name]), name, opt)
					if err != nil {
						t.Fatal(err)
					}
					if reflect.DeepEqual(want[name], got) {
						arena.Reset()
						continue // as cmp.Diff would find, in a fraction of its time
					}
					if diff := cmp.Diff(want[name], got); diff != "" {
						t.Fatalf("round %d, %s read with the arena (-without +with):\n%s", round, name, diff)
					}
					arena.Reset()
				}
			}
		})
	}
}

// TestArenaAllocatesLess: a session read again with the Arena it was read
// with, Reset, allocates less than a third of what reading it anew does.
func TestArenaAllocatesLess(t *testing.T) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 1, 2000, 1024); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	opt := Options{SizesOnly: true, TotalsOnly: true}
	allocated := func(opt Options) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Read(bytes.NewReader(data), "a.jsonl", opt); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // the spares would go at a collection
	anew := allocated(opt)
	var arena Arena
	opt.Arena = &arena
	allocated(opt)
	arena.Reset()
	again := allocated(opt)
	if again*3 > anew {
		t.Errorf("read again with its arena, the session allocated %d bytes, anew %d: want less than a third", again, anew)
	}
}

// TestSpares: an array given back comes out empty and cleared over its
// whole capacity, with room for what was asked; small and very large ones
// are not kept.
func TestSpares(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // sync.Pool empties at a collection
	var p spares[uint64]
	for _, n := range []int{1, 255, 256, 257, 511, 512, 513, 4096} {
		a := p.get(n)
		if len(a) != 0 || cap(a) < n {
			t.Fatalf("get(%d): len %d cap %d", n, len(a), cap(a))
		}
		// sync.Pool may drop what it is given (a quarter of it at random
		// under the race detector): the array is given back until it
		// comes back.
		same := false
		for range 30 {
			a = a[:cap(a)]
			for i := range a {
				a[i] = 7
			}
			p.put(a)
			b := p.get(n)
			if cap(b) < n {
				t.Fatalf("get(%d) after a put: cap %d", n, cap(b))
			}
			if i := slices.IndexFunc(b[:cap(b)], func(v uint64) bool { return v != 0 }); i >= 0 {
				t.Fatalf("get(%d) after a put: element %d is %d, want every one 0", n, i, b[i])
			}
			if same = &b[:1][0] == &a[0]; same {
				break
			}
			a = b
		}
		if kept := n >= spareFrom; same != kept {
			t.Errorf("get(%d) after puts: the array given back %v, want %v", n, same, kept)
		}
	}
	huge := make([]uint64, 0, spareUpTo/8*2)
	p.put(huge)
	if b := p.get(cap(huge)); &b[:1][0] == &huge[:1][0] {
		t.Error("an array of more than spareUpTo bytes was kept")
	}
}

// TestPile: an Arena's pile hands each array out once until a reset,
// gives them back cleared, and keeps at most pileUpTo bytes of them.
func TestPile(t *testing.T) {
	var p pile[uint64]
	seen := map[*uint64]bool{}
	for range 6 {
		a := p.get(2048)[:2048]
		if seen[&a[0]] {
			t.Fatal("an array handed out twice")
		}
		seen[&a[0]] = true
		for i := range a {
			a[i] = 9
		}
	}
	p.reset()
	for range 6 {
		a := p.get(2048)
		if !seen[&a[:1][0]] {
			t.Fatal("after a reset, a new array where a free one was kept")
		}
		delete(seen, &a[:1][0])
		if i := slices.IndexFunc(a[:cap(a)], func(v uint64) bool { return v != 0 }); i >= 0 {
			t.Fatalf("a free array's element %d is %d, want 0", i, a[i])
		}
	}
	p.reset()
	// More than the bound: what is past it is not kept.
	n := pileUpTo / 8 / 2048
	for range n + 4 {
		p.get(2048)
	}
	p.reset()
	if p.freeBytes > pileUpTo {
		t.Errorf("%d bytes kept, want at most %d", p.freeBytes, pileUpTo)
	}
	// An array past spareUpTo, never kept, is made to measure.
	n = spareUpTo/8 + 1
	if big := p.get(n); cap(big) != n {
		t.Errorf("get(%d): cap %d, want %d", n, cap(big), n)
	}
}

// TestStringSlab: every string the slab made keeps its bytes, whatever
// came after it and whatever became of the bytes it was made from.
func TestStringSlab(t *testing.T) {
	var s stringSlab
	var want, got []string
	src := make([]byte, 1100)
	for n := range 1100 {
		for i := range src[:n] {
			src[i] = byte('a' + (n+i)%26)
		}
		want = append(want, string(src[:n]))
		got = append(got, s.keep(src[:n]))
		for i := range src[:n] {
			src[i] = '#'
		}
	}
	for n := range want {
		if got[n] != want[n] {
			t.Fatalf("the string of %d bytes is %q, want %q", n, got[n], want[n])
		}
	}
}

// TestArenaKeepsIDs: a session's call ids are its log's, and stay so
// after its arena is reset and another session read with it.
func TestArenaKeepsIDs(t *testing.T) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 3, 1200, 512); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		var rec struct {
			Type      string `json:"type"`
			RequestID string `json:"requestId"`
			Message   struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &rec) == nil && rec.Type == "assistant" && !slices.Contains(want, rec.Message.ID+" "+rec.RequestID) {
			want = append(want, rec.Message.ID+" "+rec.RequestID)
		}
	}
	var arena Arena
	opt := Options{SizesOnly: true, TotalsOnly: true, Arena: &arena}
	s, err := Read(bytes.NewReader(buf.Bytes()), "ids.jsonl", opt)
	if err != nil {
		t.Fatal(err)
	}
	var ids, msgIDs []string
	for _, c := range s.Calls {
		ids = append(ids, c.MessageID+" "+c.RequestID)
		msgIDs = append(msgIDs, c.MessageID)
	}
	arena.Reset()
	var other bytes.Buffer
	if _, err := corpus.WriteSession(&other, 4, 1200, 512); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(other.Bytes()), "other.jsonl", opt); err != nil {
		t.Fatal(err)
	}
	if len(want) < 1000 {
		t.Fatalf("the log has %d responses, want 1,000 or more", len(want))
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("ids (-log +read):\n%s", diff)
	}
	for i, id := range msgIDs {
		if want := fmt.Sprint(want[i][:len(id)]); id != want {
			t.Fatalf("call %d: message id %q, want %q", i, id, want)
		}
	}
}

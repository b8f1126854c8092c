package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
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
	for i, calls := range []int{1500, 300} {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, uint64(i+1), calls, 1024); err != nil {
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

package transcript

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/internal/corpus"
)

// TestChunk checks that slices cut from one chunk keep their own
// elements whatever order their owners append in, and that a slice
// appended to by anyone else is copied, not written over its neighbour.
func TestChunk(t *testing.T) {
	var c chunk[int]
	var a, b []int
	want := map[string][]int{}
	step := func(name string, s *[]int, v int) {
		*s = c.append(*s, v)
		want[name] = append(want[name], v)
	}
	// Enough to fill several chunks, the owners taking turns unevenly.
	for i := range 3 * maxChunk {
		step("a", &a, i)
		if i%3 == 0 {
			step("b", &b, -i)
		}
		if i%5 == 0 {
			step("a", &a, 10*i) // a again, after b took the array's end
		}
	}
	if diff := cmp.Diff(want["a"], a); diff != "" {
		t.Errorf("a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want["b"], b); diff != "" {
		t.Errorf("b (-want +got):\n%s", diff)
	}
	// An append from outside copies: the next owner's first element stays.
	var x, y []int
	x = c.append(x, 1)
	y = c.append(y, 2)
	_ = append(x, 3)
	if y[0] != 2 {
		t.Errorf("append outside the chunk wrote over the next slice: %v", y)
	}
}

// TestSnapshotKeeps checks that a snapshot keeps what it saw while the
// reader goes on: a response's later line replacing its usage, and a
// later result filed after the same call, change the session, not the
// snapshot.
func TestSnapshotKeeps(t *testing.T) {
	const (
		first = `{"type":"assistant","uuid":"u1","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","requestId":"r1",` +
			`"message":{"id":"m1","model":"claude-sonnet-4-5","usage":{"input_tokens":1,"output_tokens":10},` +
			`"content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}`
		last = `{"type":"assistant","uuid":"u2","sessionId":"s","timestamp":"2026-01-01T00:00:01Z","requestId":"r1",` +
			`"message":{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":50},` +
			`"content":[{"type":"text","text":"x"}]}}`
		result = `{"type":"user","uuid":"%s","sessionId":"s","timestamp":"2026-01-01T00:00:02Z",` +
			`"message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"%s"}]}}`
	)
	type seen struct {
		Output          int64
		LowerBound      bool
		Results         []int
		ResultsAfterAll int
	}
	for _, sizesOnly := range []bool{true, false} {
		d := NewDecoder("s.jsonl", Options{Format: FormatClaude, SizesOnly: sizesOnly})
		var snaps []*Session
		for _, line := range []string{first, last, fmt.Sprintf(result, "u3", "abc"), fmt.Sprintf(result, "u4", "defgh")} {
			if err := d.Feed([]byte(line)); err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, d.Snapshot())
		}
		var got []seen
		for _, s := range snaps {
			c := s.Calls[0]
			var sizes []int
			for _, r := range c.Results {
				sizes = append(sizes, r.Bytes())
			}
			got = append(got, seen{c.Usage.Output, c.Usage.OutputLowerBound, sizes, len(s.Results())})
		}
		want := []seen{
			{10, true, nil, 0},
			{50, false, nil, 0},
			{50, false, []int{3}, 1},
			{50, false, []int{3, 5}, 2},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sizes only %v: snapshots (-want +got):\n%s", sizesOnly, diff)
		}
	}
}

// TestGrowCalls checks that Calls, once full, grows to what the rest of
// the input projects: 1,000 calls in the first quarter of a log make room
// for about 4,000, in one step, and no more than four times the calls so
// far however little was read.
func TestGrowCalls(t *testing.T) {
	tests := []struct {
		name       string
		size, read int64
		min, max   int // the capacity wanted
	}{
		{"a quarter read", 4 << 20, 1 << 20, 4000, 4300},
		{"half read", 4 << 20, 2 << 20, 2000, 2150},
		{"little read", 4 << 20, 1 << 10, 4000, 4016},
		{"size unknown", 0, 1 << 20, 1250, 1536},
		{"all read", 1 << 20, 1 << 20, 1250, 1536},
	}
	for _, tt := range tests {
		b := newBuilder("x", FormatClaude, 0)
		b.s.Calls = make([]Call, 1000)
		b.size, b.read = tt.size, tt.read
		b.growCalls()
		if got := cap(b.s.Calls); got < tt.min || got > tt.max {
			t.Errorf("%s: room for %d calls after growing from 1000, want %d to %d", tt.name, got, tt.min, tt.max)
		}
		if len(b.s.Calls) != 1000 {
			t.Errorf("%s: %d calls after growing, want 1000", tt.name, len(b.s.Calls))
		}
	}
}

// TestPartsCompact: a session read in full with Options.Compact (of up
// to compactMax parts of a kind, as every one here) holds its
// calls' tool calls, results and prompts each in one array of their
// exact number, in the order of the calls (the leading ones last), with
// no room left in any call's slice; without the results' texts and read
// ahead too.
func TestPartsCompact(t *testing.T) {
	var buf bytes.Buffer
	if _, err := corpus.WriteSession(&buf, 7, 200, 2048); err != nil {
		t.Fatal(err)
	}
	logs := map[string][]byte{"generated.jsonl": buf.Bytes()}
	for _, path := range realLogs(t) {
		logs[filepath.Base(path)] = readFixture(t, path)
	}
	for name, data := range logs {
		for _, opt := range []Options{{Compact: true}, {Compact: true, DropResultTexts: true}, {Compact: true, DropResultTexts: true, aheadBatch: 4 << 10}} {
			s, err := Read(bytes.NewReader(data), name, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var tools [][]ToolCall
			var results [][]ToolResult
			var prompts [][]Prompt
			for i := range s.Calls {
				c := &s.Calls[i]
				tools, results, prompts = append(tools, c.ToolCalls), append(results, c.Results), append(prompts, c.Prompts)
			}
			results, prompts = append(results, s.Leading.Results), append(prompts, s.Leading.Prompts)
			oneArray(t, name+" tool calls", tools)
			oneArray(t, name+" results", results)
			oneArray(t, name+" prompts", prompts)
		}
	}
}

// oneArray checks that parts lie one after another in one array, each
// with its capacity at its length.
func oneArray[T any](t *testing.T, what string, parts [][]T) {
	t.Helper()
	var end uintptr
	size := unsafe.Sizeof(*new(T))
	for k, p := range parts {
		if len(p) == 0 {
			continue
		}
		if cap(p) != len(p) {
			t.Fatalf("%s: part %d has room for %d more", what, k, cap(p)-len(p))
		}
		at := uintptr(unsafe.Pointer(unsafe.SliceData(p)))
		if end != 0 && at != end {
			t.Fatalf("%s: part %d is not where part %d ended", what, k, k-1)
		}
		end = at + uintptr(len(p))*size
	}
}

package transcript

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
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

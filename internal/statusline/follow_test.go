package statusline

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// whole reads path in one go, as the first status line of a session does.
func whole(t *testing.T, path string) *logState {
	t.Helper()
	st, err := followLog(path, nil, pricing.Default, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestFollowSameAsWhole: a log read on from where each earlier read
// stopped, cut at random places (mid-line too, and between the lines of
// one response), sums to what one read of it gives at every step, and
// that is report's cost of the log.
func TestFollowSameAsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: reads every shared Claude Code log some thirty times")
	}
	for _, src := range sharedtest.Transcripts(t, "claude-code_*.jsonl") {
		t.Run(filepath.Base(src), func(t *testing.T) {
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "session.jsonl")
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
			cuts := []int{}
			for range 30 {
				cuts = append(cuts, rng.IntN(len(data)))
			}
			// A cut just after each of the first lines too: the lines of
			// the first responses apart.
			for i, n := 0, 0; i < len(data) && n < 12; i++ {
				if data[i] == '\n' {
					cuts = append(cuts, i+1)
					n++
				}
			}
			cuts = append(cuts, len(data))
			slices.Sort(cuts)
			var st *logState
			written, resumed := 0, 0
			for _, cut := range cuts {
				if _, err := f.Write(data[written:cut]); err != nil {
					t.Fatal(err)
				}
				written = cut
				// Each step must look written after the last one.
				when := time.Unix(1_800_000_000+int64(cut), 0)
				if err := os.Chtimes(path, when, when); err != nil {
					t.Fatal(err)
				}
				if st != nil && st.Resume > 0 {
					resumed++
				}
				if st, err = followLog(path, st, pricing.Default, transcript.Options{}); err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				want := whole(t, path)
				if diff := cmp.Diff(want.Total, st.Total); diff != "" {
					t.Fatalf("cut %d of %d, resumed at %d: (-whole +followed)\n%s", cut, len(data), st.Resume, diff)
				}
			}
			if resumed < len(cuts)/2 {
				t.Errorf("only %d of %d reads went on from where the last stopped", resumed, len(cuts))
			}
			if st.End != int64(len(data)) || st.Behind {
				t.Errorf("read to %d of %d (behind %v)", st.End, len(data), st.Behind)
			}
			s, err := app.Options{Prices: pricing.Default(), Read: transcript.Options{SizesOnly: true}}.Load(app.Source{Name: src, Path: src}, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec := replay.PriceRecorded(s, pricing.Default())
			if rec.Totals.Cost == nil {
				t.Fatalf("report leaves the cost unknown; the status line has unpriced %v", st.Total.Unpriced)
			}
			if math.Abs(*rec.Totals.Cost-st.Total.Cost) > 1e-9 || st.Total.Calls != len(s.Calls) {
				t.Errorf("status line $%.6f over %d calls, report $%.6f over %d", st.Total.Cost, st.Total.Calls, *rec.Totals.Cost, len(s.Calls))
			}
		})
	}
}

// TestFollowCatchesUp: a log larger than one call reads is read over
// several calls, each saying it is behind, and sums to one whole read.
func TestFollowCatchesUp(t *testing.T) {
	src := sharedtest.Transcripts(t, "claude-code_sniffly_*.jsonl")[0]
	want := whole(t, src)
	defer func(n int64) { maxRead = n }(maxRead)
	maxRead = 100 << 10
	var st *logState
	var err error
	calls := 0
	for st == nil || st.Behind {
		if st, err = followLog(src, st, pricing.Default, transcript.Options{}); err != nil {
			t.Fatal(err)
		}
		if calls++; calls > 100 {
			t.Fatal("never caught up")
		}
	}
	if diff := cmp.Diff(want.Total, st.Total); diff != "" {
		t.Errorf("caught up over %d calls: (-whole +followed)\n%s", calls, diff)
	}
	if info, _ := os.Stat(src); calls < int(info.Size()/maxRead) {
		t.Errorf("%d calls read %d bytes, at most %d each", calls, info.Size(), maxRead)
	}
}

// TestFollowNoNewline: a log past one call's read without a newline is
// looked at once, not searched again on every call until it changes.
func TestFollowNoNewline(t *testing.T) {
	defer func(n int64) { maxRead = n }(maxRead)
	maxRead = 1 << 10
	path := filepath.Join(t.TempDir(), "s.jsonl")
	write(t, path, strings.Repeat("x", 4<<10))
	st, err := followLog(path, nil, pricing.Default, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := followLog(path, st, pricing.Default, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Behind || again != st {
		t.Errorf("behind %v, read again %v", st.Behind, again != st)
	}
}

// TestFollowRewritten: a log replaced by another (shorter, or of the same
// size with other lines) is read again from its start.
func TestFollowRewritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	a := assistantLine("m1", "2026-03-01T09:00:00Z", usage{input: 10, write5m: 100, output: 5})
	b := assistantLine("m2", "2026-03-01T09:00:03Z", usage{input: 20, read: 100, output: 7})
	write(t, path, a+b)
	st, err := followLog(path, nil, pricing.Default, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Total.Calls != 2 {
		t.Fatalf("%d calls, want 2", st.Total.Calls)
	}
	c := assistantLine("m3", "2026-03-01T09:00:03Z", usage{input: 30, read: 100, output: 7})
	write(t, path, b+c+a)
	if st, err = followLog(path, st, pricing.Default, transcript.Options{}); err != nil {
		t.Fatal(err)
	}
	if want := whole(t, path); !cmp.Equal(want.Total, st.Total) {
		t.Errorf("rewritten log: %+v, want %+v", st.Total, want.Total)
	}
}

// usage is the usage of a hand-made response.
type usage struct{ input, write5m, write1h, read, output int64 }

// assistantLine is one Claude Code response line of the 2.1 kind.
func assistantLine(id, ts string, u usage) string {
	return `{"type":"assistant","uuid":"u-` + id + `","sessionId":"s1","requestId":"r-` + id + `","timestamp":"` + ts +
		`","version":"2.1.100","message":{"id":"` + id + `","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"end_turn",` +
		`"content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":` + itoa(u.input) + `,"cache_creation_input_tokens":` + itoa(u.write5m+u.write1h) +
		`,"cache_read_input_tokens":` + itoa(u.read) + `,"output_tokens":` + itoa(u.output) +
		`,"cache_creation":{"ephemeral_5m_input_tokens":` + itoa(u.write5m) + `,"ephemeral_1h_input_tokens":` + itoa(u.write1h) + `}}}}` + "\n"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

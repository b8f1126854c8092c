package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// project is a session (sess-a) with a sub-agent under sess-a/subagents
// and a flat one, a copy of sess-a, and another session (sess-b).
var project = filepath.Join("testdata", "projects", "p")

func fixture(name string) string { return filepath.Join(project, filepath.FromSlash(name)) }

// byteCounter counts a token per four bytes: enough to prepare a replay.
type byteCounter struct{}

func (byteCounter) Count(s string) int { return len(s) / 4 }

func counter() (replay.TokenCounter, error) { return byteCounter{}, nil }

// reconciled is what a fake Reconcile saw: the paths of the set and
// whether each session held its texts.
type reconciled struct {
	paths []string
	texts map[string]bool
}

// fakeReconcile stands in for transcript.Reconcile for one test: it
// records the set and marks every call of sess-a-copy.jsonl as counted by
// sess-a.jsonl, as the real one does for a copied session.
func fakeReconcile(t *testing.T) *[]reconciled {
	t.Helper()
	var calls []reconciled
	var mu sync.Mutex // the first pass reconciles inputs on several goroutines
	old := reconcile
	reconcile = func(sessions []*transcript.Session) {
		r := reconciled{texts: map[string]bool{}}
		for _, s := range sessions {
			r.paths = append(r.paths, s.Path)
			for _, res := range s.Results() {
				r.texts[s.Path] = r.texts[s.Path] || res.Text != ""
			}
			if filepath.Base(s.Path) == "sess-a-copy.jsonl" {
				for i := range s.Calls {
					s.Calls[i].CountedIn = fixture("sess-a.jsonl")
				}
			}
		}
		slices.Sort(r.paths)
		mu.Lock()
		calls = append(calls, r)
		mu.Unlock()
	}
	t.Cleanup(func() { reconcile = old })
	return &calls
}

// billed sums the usage of calls no other session counts.
func billed(s *transcript.Session) transcript.Usage {
	var u transcript.Usage
	for _, c := range s.Calls {
		if c.Usage != nil && c.CountedIn == "" {
			u.Input += c.Usage.Input
			u.CacheCreation += c.Usage.CacheCreation
			u.CacheRead += c.Usage.CacheRead
			u.Output += c.Usage.Output
		}
	}
	return u
}

// TestEachCountsOnce runs the folder through the pipeline, keeping sizes
// only and with texts (two reads), and checks what Reconcile saw: with
// texts, the whole set at once; sizes only, each input by itself, then
// those that share responses (sess-a, its sub-agents and its copy)
// together, and not sess-b, which shares none. It checks that the marks
// reach the sessions processed, that the sub-agents come with their
// session, and that what is left to count adds up to what was billed once.
func TestEachCountsOnce(t *testing.T) {
	every := []string{
		fixture("agent-f1.jsonl"), fixture("sess-a-copy.jsonl"), fixture("sess-a.jsonl"),
		fixture("sess-a/subagents/agent-x1.jsonl"), fixture("sess-b.jsonl"),
	}
	slices.Sort(every)
	// sess-a: 10 + 1,000 + 0 + 50 and 5 + 200 + 1,000 + 20; agent-x1: 7 +
	// 300 + 0 + 30; agent-f1: 2 + 100 + 0 + 4; sess-b: 1 + 400 + 0 + 8;
	// sess-a-copy: nothing of its own.
	once := transcript.Usage{Input: 25, CacheCreation: 2000, CacheRead: 1000, Output: 112}
	sharing := slices.DeleteFunc(slices.Clone(every), func(p string) bool { return p == fixture("sess-b.jsonl") })
	alone := [][]string{
		{fixture("agent-f1.jsonl"), fixture("sess-a.jsonl"), fixture("sess-a/subagents/agent-x1.jsonl")},
		{fixture("sess-a-copy.jsonl")},
		{fixture("sess-b.jsonl")},
	}
	for _, tt := range []struct {
		name      string
		sizesOnly bool
		hold      int64
		results   int64
		// first: the sets the first pass reconciles, in any order (all
		// or, without room for their results, some); then the others.
		first    [][]string
		all      bool
		then     [][]string
		holdNone bool
	}{
		{"sizes only, held", true, 1 << 20, 1 << 20, alone, true, [][]string{sharing}, false},
		{"sizes only, read again", true, 0, 1 << 20, alone, true, [][]string{sharing}, false},
		{"sizes only, no room for results", true, 1 << 20, 0, alone, false, [][]string{sharing, alone[2]}, false},
		{"sizes only, results as large as the logs", true, 1 << 20, 1, nil, true, [][]string{sharing, alone[2]}, true},
		{"texts read again", false, 1 << 20, 1 << 20, nil, true, [][]string{every}, false},
	} {
		sizesOnly := tt.sizesOnly
		t.Run(tt.name, func(t *testing.T) {
			oldHold, oldResults := holdBytes, resultBytes
			holdBytes, resultBytes = tt.hold, tt.results
			t.Cleanup(func() { holdBytes, resultBytes = oldHold, oldResults })
			seen := fakeReconcile(t)
			inputs, err := Resolve([]string{project}, Env{})
			if err != nil {
				t.Fatal(err)
			}
			pol, _ := policy.Preset("harness-rs-0.0.50")
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: counter, Read: transcript.Options{SizesOnly: sizesOnly}, ResultsGrowWithLogs: tt.holdNone}
			var order []string
			var total transcript.Usage
			add := func(u transcript.Usage) {
				total.Input += u.Input
				total.CacheCreation += u.CacheCreation
				total.CacheRead += u.CacheRead
				total.Output += u.Output
			}
			p, err := Each(context.Background(), inputs, nil, opt, func(s *Session) (*Session, error) { return s, nil }, func(s *Session) error {
				line := filepath.Base(s.Session.Path)
				add(billed(s.Session))
				for _, sub := range s.Subagents {
					line += " " + filepath.Base(sub.Session.Path)
					add(billed(sub.Session))
				}
				order = append(order, line)
				if filepath.Base(s.Session.Path) == "sess-a-copy.jsonl" {
					for _, c := range s.Session.Calls {
						if c.CountedIn != fixture("sess-a.jsonl") {
							t.Errorf("call %d of the copy lost its mark: %q", c.Index, c.CountedIn)
						}
					}
				}
				// The texts are there when asked for, and only then.
				for _, r := range s.Session.Results() {
					if (r.Text != "") == sizesOnly {
						t.Errorf("%s: result %s has text %v, reading sizes only %v", s.Session.Path, r.CallID, r.Text != "", sizesOnly)
					}
				}
				return nil
			}, func(err error) { t.Error(err) })
			if err != nil || p != (Problems{}) {
				t.Fatalf("%v %+v", err, p)
			}
			var sets [][]string
			for _, r := range *seen {
				sets = append(sets, r.paths)
				if r.texts[fixture("sess-a.jsonl")] {
					t.Error("Reconcile was given texts: it should work on sizes-only reads")
				}
			}
			// The first pass reads the inputs on several goroutines; once
			// there is no room for a result, it only finds their keys.
			n := max(len(sets)-len(tt.then), 0)
			first := slices.Clone(sets[:n])
			slices.SortFunc(first, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
			if first = slices.CompactFunc(first, slices.Equal); len(first) != n || len(first) > len(tt.first) || (tt.all && len(first) != len(tt.first)) {
				t.Errorf("the first pass reconciled %q, want each of %q once", sets[:n], tt.first)
			}
			for _, set := range first {
				if !slices.ContainsFunc(tt.first, func(w []string) bool { return slices.Equal(w, set) }) {
					t.Errorf("the first pass reconciled %q, not a set of its own", set)
				}
			}
			if diff := cmp.Diff(tt.then, sets[n:]); diff != "" {
				t.Errorf("Reconcile's sets after the first pass (-want +got)\n%s", diff)
			}
			want := []string{"sess-b.jsonl", "sess-a-copy.jsonl", "sess-a.jsonl agent-f1.jsonl agent-x1.jsonl"}
			if diff := cmp.Diff(want, order); diff != "" {
				t.Errorf("sessions in order (-want +got)\n%s", diff)
			}
			if total != once {
				t.Errorf("counted %+v, want what was billed once, %+v", total, once)
			}
		})
	}
}

// TestEachOneRead: a single file, or standard input, is read once, in
// full when texts are needed, and still reconciled, once.
func TestEachOneRead(t *testing.T) {
	data, err := os.ReadFile(fixture("sess-b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		in        Input
		sizesOnly bool
	}{{Input{Path: fixture("sess-b.jsonl")}, false}, {Input{Path: "-"}, false}, {Input{Path: fixture("sess-b.jsonl")}, true}, {Input{Path: "-"}, true}} {
		in := tt.in
		t.Run(fmt.Sprintf("%s sizes only %v", in.Path, tt.sizesOnly), func(t *testing.T) {
			seen := fakeReconcile(t)
			pol, _ := policy.Preset("harness-rs-0.0.40")
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: counter, StdinName: "piped", Read: transcript.Options{SizesOnly: tt.sizesOnly}}
			var got []string
			_, err := Each(context.Background(), []Input{in}, bytes.NewReader(data), opt, func(s *Session) (string, error) { return s.Session.Path, nil },
				func(path string) error { got = append(got, path); return nil }, func(err error) { t.Error(err) })
			if err != nil {
				t.Fatal(err)
			}
			want := in.Path
			if want == "-" {
				want = "piped"
			}
			if !cmp.Equal(got, []string{want}) || len(*seen) != 1 || !cmp.Equal((*seen)[0].paths, []string{want}) {
				t.Errorf("processed %q, reconciled %+v", got, *seen)
			}
		})
	}
}

// TestEachProblems: inputs that cannot be read are told in order and
// counted, and do not stop the others; a sub-agent that cannot be read
// leaves its session reported.
func TestEachProblems(t *testing.T) {
	dir := t.TempDir()
	notLog := filepath.Join(dir, "notes.jsonl")
	os.WriteFile(notLog, []byte("hello\n"), 0o600)
	brokenSub := filepath.Join(dir, "gone", "subagents", "agent-z.jsonl")
	inputs := []Input{
		{Path: filepath.Join(dir, "missing.jsonl"), Err: os.ErrNotExist},
		{Path: notLog},
		{Path: fixture("sess-b.jsonl"), Subagents: []string{brokenSub}},
	}
	pol, _ := policy.Preset("none")
	var told []string
	var got []string
	p, err := Each(context.Background(), inputs, nil, Options{Prices: pricing.Default(), Policy: pol, Read: transcript.Options{SizesOnly: true}},
		func(s *Session) (string, error) { return filepath.Base(s.Session.Path), nil },
		func(name string) error { got = append(got, name); return nil },
		func(err error) { told = append(told, err.Error()) })
	if err != nil {
		t.Fatal(err)
	}
	if p != (Problems{NotTranscripts: 1, Failed: 2}) || !cmp.Equal(got, []string{"sess-b.jsonl"}) || len(told) != 3 {
		t.Fatalf("problems %+v, processed %q, told %q", p, got, told)
	}
	for i, want := range []string{"file does not exist", "notes.jsonl is not an agent transcript", "agent-z.jsonl"} {
		if !strings.Contains(told[i], want) {
			t.Errorf("problem %d is %q, want it to say %q", i, told[i], want)
		}
	}
	// Nothing to read at all: no file is looked at, the input is told.
	for _, sizesOnly := range []bool{false, true} {
		opt := Options{Prices: pricing.Default(), Policy: pol, Read: transcript.Options{SizesOnly: sizesOnly}}
		told := 0
		p, err := Each(context.Background(), inputs[:1], nil, opt, func(*Session) (int, error) { return 0, nil }, func(int) error { return nil }, func(error) { told++ })
		if err != nil || p != (Problems{Failed: 1}) || told != 1 {
			t.Errorf("sizes only %v, only a missing file: problems %+v, told %d, %v", sizesOnly, p, told, err)
		}
	}
	if _, err := Each(context.Background(), []Input{{Path: fixture("sess-b.jsonl")}}, nil, Options{Prices: pricing.Default(), Policy: pol},
		func(*Session) (int, error) { return 0, nil }, func(int) error { return errors.New("disk full") }, nil); err == nil || err.Error() != "disk full" {
		t.Errorf("emit's error: %v", err)
	}
}

// TestOrdered: results come in order however long each job takes, and no
// more than 2×workers jobs run ahead of the one emitted.
func TestOrdered(t *testing.T) {
	const n, workers = 40, 3
	var mu sync.Mutex
	started, emitted, ahead := 0, 0, 0
	var got []int
	err := ordered(n, workers, func(i int) int {
		mu.Lock()
		started++
		ahead = max(ahead, started-emitted)
		mu.Unlock()
		time.Sleep(time.Duration((i*7)%5) * time.Millisecond)
		return i * i
	}, func(i, v int) error {
		mu.Lock()
		emitted++
		mu.Unlock()
		got = append(got, v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i*i {
			t.Fatalf("result %d is %d", i, v)
		}
	}
	if len(got) != n || ahead > 2*workers {
		t.Errorf("%d results, %d jobs ahead of the output (at most %d)", len(got), ahead, 2*workers)
	}
}

// seen is what process is given of a session, texts aside: each file's
// path, and each call's line, usage, result sizes and mark.
type seen struct {
	Paths []string
	Calls []seenCall
}

type seenCall struct {
	Call      string // path:line
	CountedIn string
	Usage     transcript.Usage
	Results   []int
}

func seenOf(s *Session) seen {
	var v seen
	for _, p := range s.Parts() {
		v.Paths = append(v.Paths, p.Session.Path)
		for _, c := range p.Session.Calls {
			sc := seenCall{Call: fmt.Sprintf("%s:%d", p.Session.Path, c.Line), CountedIn: c.CountedIn}
			if c.Usage != nil {
				sc.Usage = *c.Usage
			}
			for _, r := range c.Results {
				sc.Results = append(sc.Results, r.Bytes())
			}
			v.Calls = append(v.Calls, sc)
		}
	}
	return v
}

// TestEachSizesOnlyAsTogether: reading sizes only, each input read once
// and those sharing responses read again, every session processed is the
// one reading them all together gives (the path taken when texts are
// needed), in the same order, with the same problems told in the same
// order, however little of the reads and the results there is room to
// hold and on how many goroutines. The inputs: a generated fleet (resumed
// sessions, sub-agents), ccusage's Codex cases (forks, sub-agent rollouts
// moved under their parent), the real logs and copies of some of them,
// standard input and inputs that cannot be read.
func TestEachSizesOnlyAsTogether(t *testing.T) {
	dir := t.TempDir()
	fleet := filepath.Join(dir, "fleet")
	shape := corpus.Fleet{Claude: 16, Codex: 6, MeanCalls: 16, ResultBytes: 256, SubagentEvery: 2, ResumeEvery: 3, Projects: 2}
	if _, err := corpus.WriteFleet(fleet, shape); err != nil {
		t.Fatal(err)
	}
	paths := []string{fleet, filepath.Join("..", "..", "testdata", "codex"), project}
	t.Run("real logs", func(t *testing.T) {
		paths = append(paths, sharedtest.LogsWithCopies(t, dir, 1)...)
	})
	// A Codex sub-agent whose parent is a Claude Code session: no key
	// links them, yet the rollout is moved under it.
	orphan := filepath.Join(dir, "orphan")
	os.Mkdir(orphan, 0o700)
	for _, f := range []struct{ from, to, old, new string }{
		{fixture("sess-b.jsonl"), "claude-parent.jsonl", `"sess-b"`, `"claude-parent"`},
		{filepath.Join("..", "..", "testdata", "codex", "subagent-replay", "2026-05-12T08-03-00-subagent.jsonl"), "codex-child.jsonl", `"parent-xyz"`, `"claude-parent"`},
	} {
		data, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(orphan, f.to), bytes.ReplaceAll(data, []byte(f.old), []byte(f.new)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	notLog := filepath.Join(dir, "notes.jsonl")
	if err := os.WriteFile(notLog, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inputs, err := Resolve(append(paths, orphan, notLog), Env{})
	if err != nil {
		t.Fatal(err)
	}
	inputs = slices.Insert(inputs, len(inputs)/2, Input{Path: filepath.Join(dir, "missing.jsonl"), Err: os.ErrNotExist})
	// Standard input, read once, shares responses with sess-a and its copy.
	inputs = slices.Insert(inputs, len(inputs)/3, Input{Path: "-"})
	stdin, err := os.ReadFile(fixture("sess-a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Sessions []seen
		Told     []string
		Problems Problems
	}
	each := func(t *testing.T, sizesOnly bool, workers int) result {
		pol, _ := policy.Preset("none")
		opt := Options{Prices: pricing.Default(), Policy: pol, Workers: workers, Read: transcript.Options{SizesOnly: sizesOnly}}
		var r result
		p, err := Each(context.Background(), inputs, bytes.NewReader(stdin), opt, func(s *Session) (seen, error) { return seenOf(s), nil },
			func(v seen) error { r.Sessions = append(r.Sessions, v); return nil },
			func(err error) { r.Told = append(r.Told, err.Error()) })
		if err != nil {
			t.Fatal(err)
		}
		r.Problems = p
		return r
	}
	want := each(t, false, 2)
	moved, copies, piped := 0, 0, 0
	for _, s := range want.Sessions {
		for _, p := range s.Paths[1:] {
			if strings.Contains(p, filepath.Join("testdata", "codex")) || strings.HasSuffix(p, "codex-child.jsonl") {
				moved++
			}
		}
		for _, c := range s.Calls {
			if c.CountedIn != "" {
				copies++
			}
			if c.CountedIn == "stdin" || (c.CountedIn != "" && strings.HasPrefix(c.Call, "stdin:")) {
				piped++
			}
		}
	}
	if moved == 0 || copies == 0 || piped == 0 || want.Problems != (Problems{NotTranscripts: 1, Failed: 1}) {
		t.Fatalf("%d rollouts moved, %d calls marked (%d of or by standard input), problems %+v: the comparison shows too little", moved, copies, piped, want.Problems)
	}
	t.Logf("%d sessions, %d rollouts moved under their parent, %d calls counted elsewhere", len(want.Sessions), moved, copies)
	for _, tt := range []struct {
		name          string
		hold, results int64
		workers       int
	}{
		{"held, room for every result", 1 << 30, 1 << 30, 2},
		{"read again, room for every result", 0, 1 << 30, 3},
		{"held, no room for results", 1 << 30, 0, 2},
		{"read again, room for a few results", 0, 64 << 10, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			oldHold, oldResults := holdBytes, resultBytes
			holdBytes, resultBytes = tt.hold, tt.results
			t.Cleanup(func() { holdBytes, resultBytes = oldHold, oldResults })
			if diff := cmp.Diff(want, each(t, true, tt.workers)); diff != "" {
				t.Errorf("sizes only (-together +each once):\n%s", diff)
			}
		})
	}
}

// TestEachResultRoom: reading sizes only, the first pass holds results
// only up to resultBytes, as their size tells (a byte slice's length
// here); the sessions past it are read again, each by itself, at its turn.
func TestEachResultRoom(t *testing.T) {
	dir := t.TempDir()
	var inputs []Input
	for seed := range uint64(5) {
		var buf bytes.Buffer
		if _, err := corpus.WriteSession(&buf, seed, 6, 64); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", seed))
		if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Path: path})
	}
	seen := fakeReconcile(t)
	old := resultBytes
	// Room for two results of 1,000 bytes and what holds them, not three.
	resultBytes = 2 * (1000 + int64(unsafe.Sizeof(outcome[[]byte]{})))
	t.Cleanup(func() { resultBytes = old })
	pol, _ := policy.Preset("none")
	opt := Options{Prices: pricing.Default(), Policy: pol, Workers: 1, Read: transcript.Options{SizesOnly: true}}
	var got []string
	_, err := Each(context.Background(), inputs, nil, opt, func(s *Session) ([]byte, error) {
		return append(make([]byte, 1000-len(s.Session.Path)), s.Session.Path...), nil
	}, func(b []byte) error {
		got = append(got, filepath.Base(string(bytes.TrimLeft(b, "\x00"))))
		return nil
	}, func(err error) { t.Error(err) })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"s0.jsonl", "s1.jsonl", "s2.jsonl", "s3.jsonl", "s4.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("emitted %q, want %q", got, want)
	}
	var again []string
	for _, r := range (*seen)[len(*seen)-3:] {
		again = append(again, filepath.Base(r.paths[0]))
	}
	// The first pass reconciles s0, s1 and s2, and s3 and s4 unless it
	// knows there is no room before reading them.
	if want := []string{"s2.jsonl", "s3.jsonl", "s4.jsonl"}; !slices.Equal(again, want) || len(*seen) < 3+3 || len(*seen) > 5+3 {
		t.Errorf("reconciled %d times, the last %q; want s0 and s1 held, s2, s3 and s4 read again", len(*seen), again)
	}
}

// TestLeanBound: the logs held without their texts are a quarter of the
// machine's memory, within 1 GiB, and what is held in full where it is
// not known.
func TestLeanBound(t *testing.T) {
	for _, tt := range []struct{ memory, want int64 }{
		{0, holdBytes},
		{-1, holdBytes},
		{2 << 30, 512 << 20},
		{3 << 30, 768 << 20},
		{8 << 30, 1 << 30},
		{1 << 40, 1 << 30},
	} {
		if got := leanBound(tt.memory); got != tt.want {
			t.Errorf("leanBound(%d) = %d, want %d", tt.memory, got, tt.want)
		}
	}
}

// TestEachStopsWhenCancelled: once ctx ends, no more sessions are read or
// processed, and Each says why. A list that moved to another policy read
// and prepared every session left for the one it had left, beside the
// new policy's reads.
func TestEachStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(fixture("sess-b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	var inputs []Input
	for i := range n {
		path := filepath.Join(dir, fmt.Sprintf("s%02d.jsonl", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, Input{Path: path})
	}
	pol, _ := policy.Preset("none")
	for _, sizesOnly := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var processed atomic.Int32
		opt := Options{Prices: pricing.Default(), Policy: pol, Workers: 2, Read: transcript.Options{SizesOnly: sizesOnly}}
		emitted := 0
		_, err := Each(ctx, inputs, nil, opt, func(*Session) (int, error) {
			processed.Add(1)
			cancel()
			return 0, nil
		}, func(int) error { emitted++; return nil }, nil)
		cancel()
		// The jobs begun before: at most the 2×workers that may run ahead
		// of the one emitted, and one per worker.
		if got := processed.Load(); !errors.Is(err, context.Canceled) || got > 7 || emitted != 0 {
			t.Errorf("sizes only %v: cancelled at the first session, %d of %d processed, %d emitted, error %v", sizesOnly, got, n, emitted, err)
		}
	}
}

// TestEachReconciled: inputs said to be reconciled are read each at its
// turn and handed to process as read alone, the copies unmarked (the
// caller marks them); otherwise the copy's calls count in the log it
// copies.
func TestEachReconciled(t *testing.T) {
	inputs := []Input{{Path: fixture("sess-a.jsonl")}, {Path: fixture("sess-a-copy.jsonl")}}
	pol, _ := policy.Preset("none")
	for _, reconciled := range []bool{false, true} {
		opt := Options{Prices: pricing.Default(), Policy: pol, Reconciled: reconciled}
		copied := map[string]int{}
		_, err := Each(context.Background(), inputs, nil, opt, func(s *Session) (string, error) {
			for _, c := range s.Session.Calls {
				if c.CountedIn != "" {
					copied[filepath.Base(s.Session.Path)]++
				}
			}
			return "", nil
		}, func(string) error { return nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"sess-a-copy.jsonl": 2}; reconciled && len(copied) != 0 || !reconciled && !cmp.Equal(copied, want) {
			t.Errorf("reconciled %v: calls counted elsewhere by log %v", reconciled, copied)
		}
	}
}

// TestEachKnown: a first pass that reads only for the reconcile keys takes
// them, and the sessions' ids, from Known where it knows a log, and reads
// none of those logs for them; each is read once, at its turn, and the
// sessions come out as when the first pass read them: the copies marked,
// the Codex sub-agent under its parent.
func TestEachKnown(t *testing.T) {
	oldResults := resultBytes
	resultBytes = 1 // no room for results: the first pass reads only for the keys
	t.Cleanup(func() { resultBytes = oldResults })
	inputs, err := Resolve([]string{project, filepath.Join("..", "..", "testdata", "codex", "family")}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	read := transcript.Options{SizesOnly: true}
	known := map[string]bool{}
	facts := func(path string) ([]uint64, string, string, bool) {
		s, err := transcript.ReadFile(path, read)
		if err != nil {
			return nil, "", "", false
		}
		known[path] = true
		return transcript.ReconcileKeys(s), s.ID, parentID(s), true
	}
	pol, _ := policy.Preset("none")
	each := func(withKnown bool) (out []string, reads map[string]int) {
		reads = map[string]int{}
		var mu sync.Mutex
		opt := Options{Prices: pricing.Default(), Policy: pol, Read: read, ResultsGrowWithLogs: true,
			ReadFile: func(path string, o transcript.Options) (*transcript.Session, error) {
				mu.Lock()
				reads[path]++
				mu.Unlock()
				return transcript.ReadFile(path, o)
			}}
		if withKnown {
			opt.Known = facts
		}
		_, err := Each(context.Background(), inputs, nil, opt, func(s *Session) (string, error) {
			var line strings.Builder
			for _, p := range s.Parts() {
				copied := 0
				for _, c := range p.Session.Calls {
					if c.CountedIn != "" {
						copied++
					}
				}
				fmt.Fprintf(&line, "%s (%d calls, %d copied, %+v) ", filepath.Base(p.Session.Path), len(p.Session.Calls), copied, billed(p.Session))
			}
			return line.String(), nil
		}, func(line string) error { out = append(out, line); return nil }, func(err error) { t.Error(err) })
		if err != nil {
			t.Fatal(err)
		}
		return out, reads
	}
	want, readTwice := each(false)
	got, reads := each(true)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sessions (-first pass read +known):\n%s", d)
	}
	if !strings.Contains(strings.Join(want, "\n"), "1 copied") && !strings.Contains(strings.Join(want, "\n"), "2 copied") {
		t.Errorf("no copy marked: the test shows nothing\n%s", strings.Join(want, "\n"))
	}
	for path, n := range reads {
		if known[path] && n != 1 || readTwice[path] != 2 {
			t.Errorf("%s read %d times with Known (known %v), %d without", path, n, known[path], readTwice[path])
		}
	}
	if len(known) == 0 {
		t.Error("Known was never asked")
	}
}

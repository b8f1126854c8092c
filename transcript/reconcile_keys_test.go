package transcript

import (
	"encoding/binary"
	"hash/fnv"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestReconcileKeys pins the keys of a Claude Code session and a Codex
// rollout to FNV-1a (the standard library's) over the kind and the value:
// an index cache keeps them, so they must not change within a version.
func TestReconcileKeys(t *testing.T) {
	fnvOf := func(kind byte, value []byte) uint64 {
		h := fnv.New64a()
		h.Write([]byte{kind})
		h.Write(value)
		return h.Sum64()
	}
	str := func(kind byte, s string) uint64 { return fnvOf(kind, append([]byte(s), 0)) }
	// A Codex event: its instant, input (cached and cache writes
	// included), cached, cache writes, output, reasoning and logged total,
	// then its model.
	event := func(t time.Time, model string, counts ...int64) uint64 {
		b := binary.LittleEndian.AppendUint64(nil, uint64(t.UnixNano()))
		for _, n := range counts {
			b = binary.LittleEndian.AppendUint64(b, uint64(n))
		}
		return fnvOf('e', append(append(b, model...), 0))
	}
	at := time.Date(2026, 3, 1, 10, 0, 0, 5, time.UTC)
	u := &Usage{Input: 1}
	sorted := func(keys ...uint64) []uint64 { slices.Sort(keys); return keys }
	for _, tt := range []struct {
		name string
		s    *Session
		want []uint64
	}{
		{"claude: each message id with usage once", &Session{Format: FormatClaude, ID: "s1", Calls: []Call{
			{MessageID: "msg_1", Usage: u}, {MessageID: "msg_1", Usage: u}, {MessageID: "msg_2"}, {MessageID: "msg_3", Usage: u}, {Usage: u},
		}}, sorted(str('m', "msg_1"), str('m', "msg_3"))},
		{"codex: usage events, own id and parent's", &Session{Format: FormatCodex, ID: "r1", ParentID: "r0", Calls: []Call{
			{Model: "gpt-5", Usage: &Usage{Input: 10, CacheRead: 20, CacheCreation: 3, Output: 4, Reasoning: 2, LoggedTotal: 37, At: at}},
			{Model: "gpt-5", Usage: &Usage{Input: 10, CacheRead: 20, CacheCreation: 3, Output: 4, Reasoning: 2, LoggedTotal: 37, At: at}},
			{Model: "gpt-5-mini", Usage: &Usage{Input: 10, CacheRead: 20, CacheCreation: 3, Output: 4, Reasoning: 2, LoggedTotal: 37, At: at}},
			{Model: "gpt-5", Usage: &Usage{Input: 2, At: at}},
			{Usage: &Usage{Input: 3}}, {},
		}}, sorted(event(at, "gpt-5", 33, 20, 3, 4, 2, 37), event(at, "gpt-5-mini", 33, 20, 3, 4, 2, 37), event(at, "gpt-5", 2, 0, 0, 0, 0, 0),
			str('i', "r1"), str('i', "r0"))},
		{"codex: no ids, no instants", &Session{Format: FormatCodex, Calls: []Call{{Usage: u}}}, nil},
		{"other formats are never reconciled", &Session{Format: FormatGeneric, ID: "g", Calls: []Call{{MessageID: "m", Usage: u}}}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ReconcileKeys(tt.s)); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReconcileApart: reconciling each set of sessions that share keys by
// itself marks every call as reconciling all of them together does, over
// a generated fleet (resumed sessions, sub-agents, Codex rollouts),
// ccusage's Codex cases (forks, sub-agents, copied histories) and the
// real logs with copies of some of them. Callers read only the sets
// that share keys together on the strength of it.
func TestReconcileApart(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 12, Codex: 6, MeanCalls: 20, ResultBytes: 256, SubagentEvery: 2, ResumeEvery: 3, Projects: 2}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, root := range []string{dir, filepath.Join("..", "testdata", "codex")} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				paths = append(paths, p)
			}
			return err
		})
	}
	t.Run("real logs", func(t *testing.T) {
		paths = append(paths, sharedtest.LogsWithCopies(t, dir, 0)...)
	})
	read := func() []*Session {
		var out []*Session
		for _, p := range paths {
			s, err := ReadFile(p, Options{SizesOnly: true})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			out = append(out, s)
		}
		return out
	}
	marks := func(sessions []*Session) map[string][]string {
		m := map[string][]string{}
		for _, s := range sessions {
			for _, c := range s.Calls {
				m[s.Path] = append(m[s.Path], c.CountedIn)
			}
		}
		return m
	}
	all := read()
	Reconcile(all)
	want := marks(all)

	// Sets of sessions linked by a shared key, in the order read.
	apart := read()
	set := make([]int, len(apart))
	for i := range set {
		set[i] = i
	}
	find := func(i int) int {
		for set[i] != i {
			i = set[i]
		}
		return i
	}
	first := map[uint64]int{}
	for i, s := range apart {
		for _, k := range ReconcileKeys(s) {
			if j, ok := first[k]; ok {
				a, b := find(i), find(j)
				set[max(a, b)] = min(a, b)
			} else {
				first[k] = i
			}
		}
	}
	sets := map[int][]*Session{}
	for i, s := range apart {
		sets[find(i)] = append(sets[find(i)], s)
	}
	shared, copies := 0, 0
	for _, members := range sets {
		if len(members) > 1 {
			shared++
		}
		Reconcile(members)
	}
	for _, m := range want {
		for _, c := range m {
			if c != "" {
				copies++
			}
		}
	}
	if shared == 0 || copies == 0 || len(sets) < 2 {
		t.Fatalf("%d sets, %d of them shared, %d calls marked: the comparison shows nothing", len(sets), shared, copies)
	}
	if diff := cmp.Diff(want, marks(apart)); diff != "" {
		t.Errorf("marks (-all together +each set apart):\n%s", diff)
	}
	t.Logf("%d sessions in %d sets, %d shared; %d calls marked", len(apart), len(sets), shared, copies)
}

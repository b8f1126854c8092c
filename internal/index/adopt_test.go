package index

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// TestAdoptSameAsScan: the cache a report's reads leave through a Recorder
// (sizes only, or whole as under a policy) and Adopt is the one a Scan of
// the same logs writes, record for record, and Adopt reads only the logs
// that share responses with another.
func TestAdoptSameAsScan(t *testing.T) {
	folders := []string{"../../testdata/transcripts", "../../testdata/codex", "../../testdata/claude", "../../report/testdata/by"}
	if _, err := os.Stat("../../../shared/transcripts"); err == nil {
		folders = append(folders, filepath.Join(sharedtest.Dir(t), "transcripts"))
	}
	inputs, err := app.Resolve(folders, app.Env{})
	if err != nil {
		t.Fatal(err)
	}
	cacheOf := func(t *testing.T, dir string) *cacheData {
		t.Helper()
		b, err := os.ReadFile(cachePath(dir))
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeCache(b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	scanned := t.TempDir()
	ix, err := Open(Options{CacheDir: scanned})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCache := cacheOf(t, scanned)
	comps := 0
	for _, r := range wantCache.Files {
		if r.Comp != 0 {
			comps++
		}
	}
	if comps == 0 {
		t.Fatal("no logs share a response: the test checks nothing of Adopt's reconciling")
	}
	for _, whole := range []bool{false, true} {
		dir := t.TempDir()
		ix, err := Open(Options{CacheDir: dir, FlushOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		rec := ix.Recorder()
		opt := app.Options{Prices: pricing.Default(), ReadFile: rec.ReadFile}
		opt.Read.SizesOnly = !whole
		process := func(*app.Session) (int, error) { return 0, nil }
		if _, err := app.Each(context.Background(), inputs, nil, opt, process, func(int) error { return nil }, nil); err != nil {
			t.Fatal(err)
		}
		var reads atomic.Int64
		open := openFile
		openFile = func(path string) (*os.File, os.FileInfo, error) {
			reads.Add(1)
			return open(path)
		}
		got, _, err := ix.Adopt(context.Background(), inputs, rec)
		openFile = open
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.Flush(); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("whole %v: entries differ from a scan's (-scan +adopted):\n%s", whole, diff)
		}
		gotCache := cacheOf(t, dir)
		if gotCache.LastScan != wantCache.LastScan || len(gotCache.Files) != len(wantCache.Files) {
			t.Errorf("whole %v: %d records, last scan %x; a scan's %d, %x", whole, len(gotCache.Files), gotCache.LastScan, len(wantCache.Files), wantCache.LastScan)
		}
		for path, w := range wantCache.Files {
			g := gotCache.Files[path]
			if g == nil {
				t.Errorf("whole %v: no record of %s", whole, path)
				continue
			}
			if diff := cmp.Diff(recordOf(w), recordOf(g), cmp.AllowUnexported(fileSum{})); diff != "" {
				t.Errorf("whole %v: %s: the record differs from a scan's (-scan +adopted):\n%s", whole, path, diff)
			}
		}
		if reads.Load() > int64(comps) {
			t.Errorf("whole %v: Adopt opened %d logs; %d share a response with another", whole, reads.Load(), comps)
		}
	}
}

// recordOf is what a record holds, for comparing.
func recordOf(r *cacheRecord) any {
	sum := func(f *fileSum) any {
		if f == nil {
			return nil
		}
		c := *f
		c.Keys, c.packedKeys = f.keys(), nil
		return c
	}
	return struct {
		Key         recordKey
		Comp        uint64
		Own, Final  any
		MemoEntries int
	}{r.Key, r.Comp, sum(r.Own), sum(r.Final), len(r.Memos)}
}

// TestRecorderGrownWhileRead: a log written to while the Recorder reads it
// is read in full for the caller, and not recorded: its record would be
// of another version than the caller's figures.
func TestRecorderGrownWhileRead(t *testing.T) {
	dir := t.TempDir()
	path := writeClaude(t, filepath.Join(dir, "s.jsonl"), "s", call{msg: "1", at: "2026-05-01T10:00:00Z", input: 5, result: "a"})
	ix, err := Open(Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	rec := ix.Recorder()
	open := openFile
	defer func() { openFile = open }()
	openFile = func(p string) (*os.File, os.FileInfo, error) {
		f, info, err := open(p)
		writeClaude(t, p, "s", call{msg: "2", at: "2026-05-01T10:01:00Z", input: 7, result: "b"})
		return f, info, err
	}
	s, err := rec.ReadFile(path, app.Options{}.Read)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) != 2 {
		t.Errorf("read %d calls, want both", len(s.Calls))
	}
	if rec.Recorded(path) {
		t.Error("a log grown while read is recorded")
	}
	openFile = open
	if _, err := rec.ReadFile(path, app.Options{}.Read); err != nil || !rec.Recorded(path) {
		t.Errorf("a log read whole is not recorded (%v)", err)
	}
}

// TestRelating: what a Scan tells of each log, from the log read or from
// the cache, is what reading it tells: its reconcile keys and its
// session's ids (its parent's for a sub-agent only). A log not scanned is
// not known.
func TestRelating(t *testing.T) {
	inputs, err := app.Resolve([]string{"../../testdata/codex", "../../testdata/claude", "../../report/testdata/by"}, app.Env{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	parents := 0
	for _, pass := range []string{"read", "from the cache"} {
		ix, err := Open(Options{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := ix.Scan(context.Background(), inputs, nil); err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			for _, path := range append([]string{in.Path}, in.Subagents...) {
				s, err := transcript.ReadFile(path, transcript.Options{SizesOnly: true})
				if err != nil {
					continue
				}
				parent := ""
				if s.Relation == transcript.RelationSubagent {
					parent = s.ParentID
					parents++
				}
				keys, id, gotParent, ok := ix.Relating(path)
				if !ok || id != s.ID || gotParent != parent || !cmp.Equal(keys, transcript.ReconcileKeys(s), cmpopts.EquateEmpty()) {
					t.Errorf("%s, %s: %v %q %q %d keys, want %q %q %d keys", pass, path, ok, id, gotParent, len(keys), s.ID, parent, len(transcript.ReconcileKeys(s)))
				}
			}
		}
		if _, _, _, ok := ix.Relating(filepath.Join(dir, "none.jsonl")); ok {
			t.Errorf("%s: a log not scanned is known", pass)
		}
	}
	if parents == 0 {
		t.Error("no sub-agent names its parent: the test checks nothing of it")
	}
}

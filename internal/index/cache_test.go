package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
)

// call is one response of a written Claude Code session and the result
// that came back after it.
type call struct {
	msg    string // message and request id
	at     string // its time, RFC 3339
	input  int64  // input tokens; cache writes are 100, reads 1,000, output 10
	result string
}

// writeClaude writes a Claude Code session of calls to path (appending
// when it exists) and returns the path.
func writeClaude(t *testing.T, path, session string, calls ...call) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, c := range calls {
		lines := []map[string]any{{
			"type": "assistant", "sessionId": session, "version": "2.1.30", "cwd": "/home/dev/shop", "uuid": "a" + c.msg,
			"requestId": "req_" + c.msg, "timestamp": c.at,
			"message": map[string]any{"id": "msg_" + c.msg, "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "tool_use",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + c.msg, "name": "Read", "input": map[string]any{"file_path": "/f"}}},
				"usage":   map[string]any{"input_tokens": c.input, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000, "output_tokens": 10}},
		}, {
			"type": "user", "sessionId": session, "version": "2.1.30", "cwd": "/home/dev/shop", "uuid": "u" + c.msg, "timestamp": c.at,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_" + c.msg, "content": c.result}}},
		}}
		for _, l := range lines {
			if err := enc.Encode(l); err != nil {
				t.Fatal(err)
			}
		}
	}
	return path
}

// countReads counts the files read in full until the test ends.
func countReads(t *testing.T) func() int {
	var mu sync.Mutex
	n := 0
	old := afterStat
	afterStat = func(string) {
		mu.Lock()
		n++
		mu.Unlock()
	}
	t.Cleanup(func() { afterStat = old })
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		got := n
		n = 0
		return got
	}
}

func scanDir(t *testing.T, opt Options, paths ...string) ([]Entry, []Warning) {
	t.Helper()
	_, entries, warnings := openScanned(t, opt, paths...)
	return entries, warnings
}

// openScanned opens an index with opt and scans paths through it.
func openScanned(t *testing.T, opt Options, paths ...string) (*Index, []Entry, []Warning) {
	t.Helper()
	inputs, err := app.Resolve(paths, app.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(opt)
	if err != nil {
		t.Fatal(err)
	}
	entries, warnings, err := ix.Scan(context.Background(), inputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ix, entries, warnings
}

func at(sec int) string {
	return time.Date(2026, 2, 1, 10, 0, sec, 0, time.UTC).Format(time.RFC3339)
}

// TestEntry pins every field of an Entry to a hand-written session.
// claude-sonnet-4-5 costs $3, $3.75, $0.30 and $15 per million input,
// cache write, cache read and output tokens: a call of 5 input tokens
// costs $0.000015 + $0.000375 + $0.0003 + $0.00015 = $0.00084, and one of
// 7, $0.000846.
func TestEntry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "projects", "-home-dev-shop")
	path := writeClaude(t, filepath.Join(dir, "s1.jsonl"), "s1",
		call{msg: "1", at: at(1), input: 5, result: strings.Repeat("a", 300)},
		call{msg: "2", at: at(9), input: 7, result: strings.Repeat("b", 40)})
	entries, warnings := scanDir(t, Options{NoCache: true}, dir)
	if len(warnings) > 0 {
		t.Fatalf("warnings: %v", warnings)
	}
	usd := 0.00084 + 0.000846
	want := []Entry{{
		Path: path, Format: "claude-code", Version: "2.1.30", SessionID: "s1", Project: "/home/dev/shop",
		First: time.Date(2026, 2, 1, 10, 0, 1, 0, time.UTC), Last: time.Date(2026, 2, 1, 10, 0, 9, 0, time.UTC),
		Models: []string{"claude-sonnet-4-5"}, APICalls: 2,
		Recorded: Tokens{Input: 12, CacheCreation: 200, CacheRead: 2000, Output: 20}, CostUSD: &usd,
		ByModel: []ModelTotals{{Model: "claude-sonnet-4-5", APICalls: 2, Recorded: Tokens{Input: 12, CacheCreation: 200, CacheRead: 2000, Output: 20}, CostUSD: &usd}},
		Results: 2, ResultBytes: 340, LargestResult: 300, ResultSizes: []int{40, 300},
	}}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	want[0].Modified, want[0].Bytes = info.ModTime().UTC(), info.Size()
	if diff := cmp.Diff(want, entries, costsClose); diff != "" {
		t.Errorf("entry (-want +got):\n%s", diff)
	}
	for ceiling, want := range map[int]int{0: 2, 39: 2, 40: 1, 299: 1, 300: 0} {
		if got := entries[0].ResultsOver(ceiling); got != want {
			t.Errorf("ResultsOver(%d) = %d, want %d", ceiling, got, want)
		}
	}
}

var costsClose = cmp.Comparer(func(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return fmt.Sprintf("%.9f", *a) == fmt.Sprintf("%.9f", *b)
})

// TestCacheReopen: a second index over unchanged files reads none of them
// and gives the same entries; the cache file is its owner's only.
func TestCacheReopen(t *testing.T) {
	root := t.TempDir()
	cacheDir := filepath.Join(root, "cache")
	dir := filepath.Join(root, "logs")
	for i := range 3 {
		writeClaude(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)), fmt.Sprint("s", i),
			call{msg: fmt.Sprint(i), at: at(i), input: int64(i), result: strings.Repeat("r", 10*i)})
	}
	reads := countReads(t)
	first, w := scanDir(t, Options{CacheDir: cacheDir}, dir)
	if len(w) > 0 || reads() != 3 {
		t.Fatalf("first scan: warnings %v", w)
	}
	info, err := os.Stat(filepath.Join(cacheDir, cacheName))
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("cache mode %v, want 0600", info.Mode().Perm())
	}
	again, w := scanDir(t, Options{CacheDir: cacheDir}, dir)
	if n := reads(); len(w) > 0 || n != 0 {
		t.Errorf("reopened: %d files read, warnings %v; want none", n, w)
	}
	if diff := cmp.Diff(first, again, costsClose); diff != "" {
		t.Errorf("reopened entries differ (-first +again):\n%s", diff)
	}
	none, _ := scanDir(t, Options{NoCache: true, CacheDir: filepath.Join(root, "unused")}, dir)
	if reads() != 3 {
		t.Error("NoCache used the cache")
	}
	if diff := cmp.Diff(first, none, costsClose); diff != "" {
		t.Errorf("NoCache entries differ:\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(root, "unused")); !os.IsNotExist(err) {
		t.Errorf("NoCache wrote a cache: %v", err)
	}
}

// TestCacheGrown: a file that grew is read again, and so is every file
// whose copies it now shares, so that copy decisions stay reconciling's.
func TestCacheGrown(t *testing.T) {
	root := t.TempDir()
	cacheDir := filepath.Join(root, "cache")
	dir := filepath.Join(root, "logs")
	a := writeClaude(t, filepath.Join(dir, "a.jsonl"), "a", call{msg: "a1", at: at(1), input: 1, result: "x"}, call{msg: "a2", at: at(2), input: 2, result: "y"})
	b := writeClaude(t, filepath.Join(dir, "b.jsonl"), "b", call{msg: "b1", at: at(3), input: 3, result: "z"})
	writeClaude(t, filepath.Join(dir, "c.jsonl"), "c", call{msg: "c1", at: at(4), input: 4, result: "w"})
	reads := countReads(t)
	scanDir(t, Options{CacheDir: cacheDir}, dir)
	reads()

	// b resumes a: it repeats a's first response, which a counts.
	writeClaude(t, b, "a", call{msg: "a1", at: at(1), input: 1, result: "x"})
	grown, w := scanDir(t, Options{CacheDir: cacheDir}, dir)
	if n := reads(); n != 3 || len(w) > 0 { // b grew; b and a reconciled together
		t.Errorf("after b grew: %d reads (want b alone, then a and b together), warnings %v", n, w)
	}
	want, _ := scanDir(t, Options{NoCache: true}, dir)
	reads()
	if diff := cmp.Diff(want, grown, costsClose); diff != "" {
		t.Errorf("grown entries differ from a fresh scan (-fresh +cached):\n%s", diff)
	}
	byPath := map[string]Entry{}
	for _, e := range grown {
		byPath[e.Path] = e
	}
	if e := byPath[b]; e.CopiedCalls != 1 || e.Recorded.Input != 3 {
		t.Errorf("b: %d copied calls, %d input tokens; want its copy of a1 counted in a: 1 and 3", e.CopiedCalls, e.Recorded.Input)
	}
	if e := byPath[a]; e.CopiedCalls != 0 || e.Recorded.Input != 3 {
		t.Errorf("a: %d copied calls, %d input tokens; want 0 and 3", e.CopiedCalls, e.Recorded.Input)
	}

	// Unchanged again: the group's decisions come from the cache.
	again, _ := scanDir(t, Options{CacheDir: cacheDir}, dir)
	if n := reads(); n != 0 {
		t.Errorf("unchanged group read %d files again", n)
	}
	if diff := cmp.Diff(want, again, costsClose); diff != "" {
		t.Errorf("recalled group differs (-fresh +cached):\n%s", diff)
	}

	// A new session beside them: it alone is read, the group is recalled.
	writeClaude(t, filepath.Join(dir, "d.jsonl"), "d", call{msg: "d1", at: at(5), input: 5, result: "v"})
	more, _ := scanDir(t, Options{CacheDir: cacheDir}, dir)
	if n := reads(); n != 1 {
		t.Errorf("with a new session, %d files read; want it alone", n)
	}
	want, _ = scanDir(t, Options{NoCache: true}, dir)
	if diff := cmp.Diff(want, more, costsClose); diff != "" {
		t.Errorf("with a new session (-fresh +cached):\n%s", diff)
	}
}

// TestCacheRebuilt: a cache that is not this format's is ignored with one
// warning naming it and rebuilt; one written under another version or
// price table is rebuilt without a word.
// TestEarlierCachesRemoved: once the cache is written, the files of
// earlier formats beside it, never read again, are gone; anything else
// in the folder stays.
func TestEarlierCachesRemoved(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	writeClaude(t, filepath.Join(dir, "s.jsonl"), "s", call{msg: "1", at: at(1), input: 1, result: "x"})
	cacheDir := filepath.Join(root, "cache")
	os.MkdirAll(cacheDir, 0o700)
	earlier := []string{"index-v1.bin", "index-v2.bin", "index-v3.bin"}
	for _, name := range append(earlier, "other.bin") {
		os.WriteFile(filepath.Join(cacheDir, name), []byte("old"), 0o600)
	}
	scanDir(t, Options{CacheDir: cacheDir}, dir)
	for _, name := range earlier {
		if _, err := os.Stat(filepath.Join(cacheDir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want it removed", name, err)
		}
	}
	for _, name := range []string{cacheName, "other.bin"} {
		if _, err := os.Stat(filepath.Join(cacheDir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCacheRebuilt(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	writeClaude(t, filepath.Join(dir, "s.jsonl"), "s", call{msg: "1", at: at(1), input: 1, result: "x"})
	want, _ := scanDir(t, Options{NoCache: true}, dir)
	cacheDir := filepath.Join(root, "good")
	scanDir(t, Options{CacheDir: cacheDir}, dir)
	good, err := os.ReadFile(filepath.Join(cacheDir, cacheName))
	if err != nil {
		t.Fatal(err)
	}
	future := append([]byte(nil), good...)
	future[len(cacheMagic)] = cacheVersion + 1
	old := append([]byte(nil), good...)
	old[len(cacheMagic)] = cacheVersion - 1
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0xff
	for name, tc := range map[string]struct {
		data []byte
		why  string
	}{
		"garbage":   {[]byte("\x00\x01garbage"), "not a spillway session index"},
		"foreign":   {[]byte(`{"sessions": []}`), "not a spillway session index"},
		"truncated": {good[:len(good)-9], "truncated"},
		"future":    {future, fmt.Sprintf("format version %d, this spillway reads version %d", cacheVersion+1, cacheVersion)},
		"old":       {old, fmt.Sprintf("format version %d, this spillway reads version %d", cacheVersion-1, cacheVersion)},
		"flipped":   {flipped, "checksum does not match"},
		"empty":     {nil, "not a spillway session index"},
	} {
		t.Run(name, func(t *testing.T) {
			cacheDir := filepath.Join(root, name)
			if err := os.MkdirAll(cacheDir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cacheDir, cacheName), tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			reads := countReads(t)
			got, w := scanDir(t, Options{CacheDir: cacheDir}, dir)
			if len(w) != 1 || w[0].Path != filepath.Join(cacheDir, cacheName) || !strings.Contains(w[0].String(), tc.why) {
				t.Errorf("warnings %v, want one naming the cache: %s", w, tc.why)
			}
			if diff := cmp.Diff(want, got, costsClose); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			reads()
			if _, w := scanDir(t, Options{CacheDir: cacheDir}, dir); len(w) != 0 || reads() != 0 {
				t.Errorf("the rebuilt cache was not used: warnings %v", w)
			}
		})
	}
	t.Run("other header", func(t *testing.T) {
		reads := countReads(t)
		table, err := pricing.Parse([]byte(`{"claude-sonnet-4-5": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}`), "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{Version: "v9.9.9"}, {Prices: table}} {
			opt.CacheDir = cacheDir
			if _, w := scanDir(t, opt, dir); len(w) != 0 || reads() != 1 {
				t.Errorf("%+v: warnings %v or the cache was used", opt, w)
			}
		}
	})
}

// TestBadInput: whatever happens to one file, the others are indexed, the
// one is named in a warning, and nothing is counted twice.
func TestBadInput(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	ok := writeClaude(t, filepath.Join(dir, "ok.jsonl"), "ok", call{msg: "1", at: at(1), input: 1, result: "x"})
	bad := func() string {
		return writeClaude(t, filepath.Join(dir, "bad\x1b[31m.jsonl"), "bad", call{msg: "2", at: at(2), input: 2, result: "y"})
	}
	const escaped = `bad\x1b[31m.jsonl` // as termtext writes the name
	check := func(t *testing.T, entries []Entry, w []Warning, why string) {
		t.Helper()
		if len(entries) != 1 || entries[0].Path != ok || entries[0].Recorded.Input != 1 {
			t.Errorf("entries %+v, want ok.jsonl alone", entries)
		}
		if len(w) != 1 || !strings.Contains(w[0].String(), escaped) || !strings.Contains(w[0].String(), why) {
			t.Errorf("warnings %q, want one naming %s: %s", w, escaped, why)
		}
	}
	inputs := func(t *testing.T) []app.Input {
		in, err := app.Resolve([]string{dir}, app.Env{})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	scanInputs := func(t *testing.T, opt Options, in []app.Input) ([]Entry, []Warning) {
		ix, err := Open(opt)
		if err != nil {
			t.Fatal(err)
		}
		entries, w, err := ix.Scan(context.Background(), in, nil)
		if err != nil {
			t.Fatal(err)
		}
		return entries, w
	}
	t.Run("vanished", func(t *testing.T) {
		p := bad()
		in := inputs(t)
		os.Remove(p)
		entries, w := scanInputs(t, Options{NoCache: true}, in)
		check(t, entries, w, "no such file")
	})
	t.Run("shrank while read", func(t *testing.T) {
		p := bad()
		defer os.Remove(p)
		old := afterStat
		afterStat = func(path string) {
			if path == p {
				os.Truncate(p, 10)
			}
		}
		defer func() { afterStat = old }()
		cacheDir := filepath.Join(root, "shrank")
		entries, w := scanInputs(t, Options{CacheDir: cacheDir}, inputs(t))
		check(t, entries, w, "changed while it was read")
		afterStat = old
		// Nothing of it was cached: the next scan reads what is there now.
		entries, w = scanInputs(t, Options{CacheDir: cacheDir}, inputs(t))
		check(t, entries, w, "not an agent transcript")
	})
	t.Run("no permission", func(t *testing.T) {
		p := bad()
		defer os.Remove(p)
		if os.Getuid() == 0 {
			old := openFile
			openFile = func(path string) (*os.File, os.FileInfo, error) {
				if path == p {
					return nil, nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
				}
				return old(path)
			}
			defer func() { openFile = old }()
		} else if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		entries, w := scanInputs(t, Options{NoCache: true}, inputs(t))
		check(t, entries, w, "permission denied")
	})
	t.Run("symlink loop", func(t *testing.T) {
		loop := filepath.Join(root, "loop")
		if err := os.Symlink(loop, loop); err != nil {
			t.Skip(err)
		}
		inside := filepath.Join(dir, "self")
		if err := os.Symlink(dir, inside); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(inside)
		in, err := app.Resolve([]string{dir, loop}, app.Env{})
		if err != nil {
			t.Fatal(err)
		}
		entries, w := scanInputs(t, Options{NoCache: true}, in)
		if len(entries) != 1 || entries[0].Path != ok {
			t.Errorf("entries %+v, want ok.jsonl once", entries)
		}
		if len(w) != 1 || !strings.Contains(w[0].String(), "loop") {
			t.Errorf("warnings %q, want one naming the loop", w)
		}
	})
	t.Run("named twice", func(t *testing.T) {
		in, err := app.Resolve([]string{ok, dir, ok}, app.Env{})
		if err != nil {
			t.Fatal(err)
		}
		entries, w := scanInputs(t, Options{NoCache: true}, in)
		if len(entries) != 1 || entries[0].Recorded.Input != 1 || len(w) != 0 {
			t.Errorf("entries %+v, warnings %v; want ok.jsonl once", entries, w)
		}
	})
}

// TestScanProgressAndCancel: progress counts every file once, up to the
// total; a cancelled scan returns ctx's error and no entries.
func TestScanProgressAndCancel(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		writeClaude(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)), fmt.Sprint("s", i), call{msg: fmt.Sprint(i), at: at(i), input: 1, result: "x"})
	}
	inputs, err := app.Resolve([]string{dir}, app.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	var seen []int
	if _, _, err := ix.Scan(context.Background(), inputs, func(done, total int) {
		if total != 5 {
			t.Errorf("total %d, want 5", total)
		}
		seen = append(seen, done)
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, seen); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	entries, _, err := ix.Scan(ctx, inputs, nil)
	if err != context.Canceled || entries != nil {
		t.Errorf("cancelled scan: %d entries, %v; want none and context.Canceled", len(entries), err)
	}
}

// TestCachePruned: a scan that writes the cache forgets the files of other
// scans that are gone, and keeps those still there.
func TestCachePruned(t *testing.T) {
	root := t.TempDir()
	cacheDir := filepath.Join(root, "cache")
	a1 := writeClaude(t, filepath.Join(root, "a", "a1.jsonl"), "a1", call{msg: "1", at: at(1), input: 1, result: "x"})
	a2 := writeClaude(t, filepath.Join(root, "a", "a2.jsonl"), "a2", call{msg: "2", at: at(2), input: 1, result: "x"})
	b1 := writeClaude(t, filepath.Join(root, "b", "b1.jsonl"), "b1", call{msg: "3", at: at(3), input: 1, result: "x"})
	scanDir(t, Options{CacheDir: cacheDir}, filepath.Join(root, "a"))
	os.Remove(a1)
	scanDir(t, Options{CacheDir: cacheDir}, filepath.Join(root, "b"))
	ix, err := Open(Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	c, w := loadCache(cacheDir, ix.header())
	if w != nil {
		t.Fatal(w)
	}
	var kept []string
	for p := range c.data.Files {
		kept = append(kept, p)
	}
	slices.Sort(kept)
	if diff := cmp.Diff([]string{a2, b1}, kept); diff != "" {
		t.Errorf("files kept (-want +got):\n%s", diff)
	}
}

// TestRescanInMemory: an Index without a cache file it can write (NoCache,
// or a cache folder that cannot be made) remembers what it read between
// its own scans: a second Scan reads no file, one that changed is read
// alone, and the entries are a fresh scan's. NoCache writes nothing; an
// unwritable cache says so at every scan (the first also that it could not
// be read).
func TestRescanInMemory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "logs")
	var paths []string
	for i := range 3 {
		paths = append(paths, writeClaude(t, filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i)), fmt.Sprint("s", i),
			call{msg: fmt.Sprint(i), at: at(i), input: int64(i + 1), result: strings.Repeat("r", 10*i)}))
	}
	blocker := filepath.Join(root, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cwd := filepath.Join(root, "cwd")
	if err := os.Mkdir(cwd, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Chdir(cwd)
	for _, tt := range []struct {
		name    string
		opt     Options
		warning string // at every scan
	}{
		{name: "no cache", opt: Options{NoCache: true}},
		{name: "unwritable cache", opt: Options{CacheDir: filepath.Join(blocker, "cache")}, warning: "session index not saved"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Open(tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			reads := countReads(t)
			scan := func(wantReads int) []Entry {
				t.Helper()
				inputs, err := app.Resolve([]string{dir}, app.Env{})
				if err != nil {
					t.Fatal(err)
				}
				entries, w, err := ix.Scan(context.Background(), inputs, nil)
				if err != nil {
					t.Fatal(err)
				}
				if n := reads(); n != wantReads {
					t.Errorf("%d files read, want %d", n, wantReads)
				}
				said := slices.ContainsFunc(w, func(w Warning) bool { return strings.Contains(w.String(), tt.warning) })
				if tt.warning == "" && len(w) != 0 || tt.warning != "" && !said {
					t.Errorf("warnings %v, want %q", w, tt.warning)
				}
				fresh, _ := scanDir(t, Options{NoCache: true}, dir)
				reads()
				if diff := cmp.Diff(fresh, entries, costsClose); diff != "" {
					t.Errorf("entries differ from a fresh scan (-fresh +rescan):\n%s", diff)
				}
				return entries
			}
			scan(3)
			scan(0)
			writeClaude(t, paths[1], "s1", call{msg: "more-" + tt.name, at: at(9), input: 50, result: "z"})
			if e := scan(1); len(e) != 3 {
				t.Errorf("%d entries, want 3", len(e))
			}
			scan(0)
			if tt.opt.NoCache {
				if left, _ := os.ReadDir(cwd); len(left) != 0 {
					t.Errorf("NoCache wrote %v", left)
				}
			}
		})
	}
}

// TestGroups: sessions that share a response name the same group, one
// that shares none names none, and reopening from the cache says the same.
func TestGroups(t *testing.T) {
	root := t.TempDir()
	cacheDir := filepath.Join(root, "cache")
	dir := filepath.Join(root, "logs")
	shared := call{msg: "shared", at: at(0), input: 5, result: "r"}
	writeClaude(t, filepath.Join(dir, "a.jsonl"), "a", shared)
	writeClaude(t, filepath.Join(dir, "b.jsonl"), "b", shared, call{msg: "b1", at: at(1), input: 3})
	writeClaude(t, filepath.Join(dir, "c.jsonl"), "c", call{msg: "c1", at: at(2), input: 7})
	for _, run := range []string{"read", "from the cache"} {
		entries, w := scanDir(t, Options{CacheDir: cacheDir}, dir)
		groups := map[string][]uint64{}
		for _, e := range entries {
			groups[filepath.Base(e.Path)] = e.Groups
		}
		if len(w) > 0 || len(groups["a.jsonl"]) != 1 || !slices.Equal(groups["a.jsonl"], groups["b.jsonl"]) || len(groups["c.jsonl"]) != 0 {
			t.Errorf("%s: groups %v, warnings %v", run, groups, w)
		}
	}
}

package report

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// cacheFolder copies into a new folder the logs a grouped report is
// checked on: sub-agents, Codex rollouts moved under their parent,
// resumed sessions that share responses, and the shared real logs where
// they are found.
func cacheFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sources := map[string]string{
		"by":     "testdata/by",
		"family": "../testdata/codex/family",
		"many":   "../testdata/codex/subagents-many",
		"claude": "../testdata/claude",
	}
	if _, err := os.Stat(filepath.Join("..", "..", "shared", "transcripts")); err == nil {
		sources["shared"] = filepath.Join(sharedtest.Dir(t), "transcripts")
	}
	for name, src := range sources {
		err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			to := filepath.Join(dir, name, rel)
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			return os.WriteFile(to, b, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGroupsFromCache: a grouped report kept in the session index (its
// first run reading through the Recorder, the next from the shares kept)
// is byte for byte the report read afresh, under each grouping, format,
// cut and policy; run again, it reads no log. A log changed since, and a
// new log that shares its responses, are reported afresh, with the logs
// they share responses with.
func TestGroupsFromCache(t *testing.T) {
	none, _ := policy.Preset("none")
	shaping, _ := policy.Preset("harness-rs-0.0.50")
	since, _ := ParseBound("2026-05-12", time.UTC, false)
	type run struct {
		name   string
		format string
		g      Grouping
		pol    policy.Policy
	}
	runs := []run{
		{"day json", "json", Grouping{By: "day", ZoneName: "UTC"}, none},
		{"session text", "text", Grouping{By: "session", ZoneName: "UTC"}, none},
		{"table text policy", "text", Grouping{ZoneName: "UTC"}, shaping},
		{"project csv", "csv", Grouping{By: "project", ZoneName: "UTC"}, none},
		{"model json cut", "json", Grouping{By: "model", ZoneName: "UTC", Since: since}, none},
		{"week json Berlin", "json", Grouping{By: "week", Zone: berlin(t), ZoneName: "Europe/Berlin"}, none},
		{"day json policy", "json", Grouping{By: "day", ZoneName: "UTC"}, shaping},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			dir, cache := cacheFolder(t), t.TempDir()
			report := func(cacheDir string) (out, errw string, reads int64) {
				t.Helper()
				var read sync.Map // the logs read, some twice
				opt := Options{Prices: pricing.Default(), Policy: r.pol, CacheDir: cacheDir, SpillRoot: filepath.Join(cache, "spills"),
					ReadFile: func(path string, o transcript.Options) (*transcript.Session, error) {
						read.Store(path, true)
						return transcript.ReadFile(path, o)
					}}
				if !r.pol.Inert() {
					opt.Counter, opt.Encoding = app.Tokenizer(tokens.O200kBase), string(tokens.O200kBase)
				}
				var o, e bytes.Buffer
				if _, err := GenerateGroups([]string{dir}, nil, opt, r.g, r.format, &o, &e); err != nil {
					t.Fatal(err)
				}
				read.Range(func(any, any) bool { reads++; return true })
				return o.String(), e.String(), reads
			}
			// check runs the report afresh, then kept: its first run reads
			// no more than afresh logs (-1: any), the next none.
			check := func(when string, afresh int64) {
				t.Helper()
				want, wantErr, _ := report("")
				for i, what := range []string{"its first run", "run again"} {
					got, gotErr, reads := report(cache)
					if got != want || gotErr != wantErr {
						t.Errorf("%s: %s differs from the report read afresh:\n%s%s\nwant\n%s%s", when, what, got, gotErr, want, wantErr)
					}
					if limit := []int64{afresh, 0}[i]; limit >= 0 && reads > limit {
						t.Errorf("%s: %s read %d logs afresh, want no more than %d", when, what, reads, limit)
					}
				}
			}
			check("first", -1)

			// A log touched: its session alone is reported afresh.
			logs, _ := filepath.Glob(filepath.Join(dir, "by", "claude", "projects", "*", "*.jsonl"))
			if len(logs) == 0 {
				t.Fatal("no log to change: the test checks nothing")
			}
			touch(t, logs[0])
			check("a log touched", 1)

			// A copy of a log: the two share every response, and which
			// counts each is decided between them.
			b, err := os.ReadFile(logs[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(filepath.Dir(logs[0]), "copy.jsonl"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			check("a log copied", 2)
		})
	}
}

// TestGroupsFromOneCache: reports of other groupings, zones, cuts and
// policies, run in turn on one cache, each take only their own shares.
func TestGroupsFromOneCache(t *testing.T) {
	dir, cache := cacheFolder(t), t.TempDir()
	none, _ := policy.Preset("none")
	shaping, _ := policy.Preset("harness-rs-0.0.50")
	since, _ := ParseBound("2026-05-12", time.UTC, false)
	type run struct {
		format string
		g      Grouping
		pol    policy.Policy
	}
	runs := []run{
		{"json", Grouping{By: "day", ZoneName: "UTC"}, none},
		{"json", Grouping{By: "day", Zone: berlin(t), ZoneName: "Europe/Berlin"}, none},
		{"json", Grouping{By: "day", ZoneName: "UTC", Since: since}, none},
		{"json", Grouping{By: "day", ZoneName: "UTC"}, shaping},
		{"text", Grouping{By: "session", ZoneName: "UTC", Width: 100}, none},
		{"text", Grouping{By: "session", ZoneName: "UTC", Width: 160}, none},
	}
	for round := range 2 {
		for i, r := range runs {
			var out [2]string
			for k, dir2 := range []string{"", cache} {
				opt := Options{Prices: pricing.Default(), Policy: r.pol, CacheDir: dir2, SpillRoot: filepath.Join(cache, "spills")}
				if !r.pol.Inert() {
					opt.Counter, opt.Encoding = app.Tokenizer(tokens.O200kBase), string(tokens.O200kBase)
				}
				var o, e bytes.Buffer
				if _, err := GenerateGroups([]string{dir}, nil, opt, r.g, r.format, &o, &e); err != nil {
					t.Fatal(err)
				}
				out[k] = o.String() + e.String()
			}
			if out[1] != out[0] {
				t.Errorf("round %d, report %d: from the cache\n%s\nwant\n%s", round, i, out[1], out[0])
			}
		}
	}
}

// touch dates the log at path a nanosecond later: a change of its key
// that leaves it where it was among the newest first.
func touch(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(time.Nanosecond)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func berlin(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestGroupShareCodec: a share read back is the share written, and a
// share cut anywhere is an error, never a panic.
func TestGroupShareCodec(t *testing.T) {
	last := time.Date(2026, 5, 12, 8, 0, 0, 0, time.UTC)
	g := &Group{Key: "2026-05-12", Sessions: 1, APICalls: 3, Recorded: Tokens{Input: 1, CacheCreation: 2, CacheRead: 3, Output: 4},
		sum:  groupSum{usage: 3, priced: 0.1 + 0.2, pricedAfter: 1e-17, afterUnknown: true, unpriced: map[string]bool{"b": true, "a": true}, copies: 2, noUsage: 1},
		last: last, session: &sessionInfo{id: "s", project: "p", agent: "claude 2.1", models: []string{"m1", "m2"}}}
	d := groupDone{data: []byte(`{"path":"x"}`), part: &part{keys: map[string]*Group{g.Key: g}, order: []string{g.Key}, total: *g, any: true, untimed: 5}}
	b := encodeGroupDone(d)
	got, err := decodeGroupDone(b)
	if err != nil {
		t.Fatal(err)
	}
	if again := encodeGroupDone(got); !bytes.Equal(again, b) {
		t.Errorf("read back and written again, the share differs")
	}
	if g2 := got.part.keys[g.Key]; g2 == nil || !g2.last.Equal(last) || g2.sum.priced != g.sum.priced || g2.session.models[1] != "m2" || got.part.untimed != 5 {
		t.Errorf("read back: %+v", got.part)
	}
	for i := range b {
		if _, err := decodeGroupDone(b[:i]); err == nil {
			t.Errorf("cut at %d of %d bytes: no error", i, len(b))
		}
	}
	if _, err := decodeGroupDone(append(b, 0)); err == nil {
		t.Error("a byte after the share: no error")
	}
}

// TestSweepFromCache: a sweep, and a sweep of repeat suppression, kept in
// the session index are the sweeps run afresh, written as JSON and as
// text; run again they read no log, and after a log is touched only it.
func TestSweepFromCache(t *testing.T) {
	dir, cache := cacheFolder(t), t.TempDir()
	pol, _ := policy.Preset("harness-rs-0.0.40") // suppresses repeats too
	sweeps := map[string]func(opt Options) (interface {
		Write(w io.Writer, format string, width int) error
	}, error){
		"sweep": func(opt Options) (interface {
			Write(io.Writer, string, int) error
		}, error) {
			d, _, err := Sweep([]string{dir}, nil, opt, io.Discard)
			return d, err
		},
		"dedupe": func(opt Options) (interface {
			Write(io.Writer, string, int) error
		}, error) {
			d, _, err := SweepDedupe([]string{dir}, nil, opt, io.Discard)
			return d, err
		},
	}
	for name, sweep := range sweeps {
		run := func(cacheDir string) (string, int64) {
			t.Helper()
			var read sync.Map
			opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), Encoding: string(tokens.O200kBase), CacheDir: cacheDir,
				ReadFile: func(path string, o transcript.Options) (*transcript.Session, error) {
					read.Store(path, true)
					return transcript.ReadFile(path, o)
				}}
			d, err := sweep(opt)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			for _, format := range []string{"json", "text"} {
				if err := d.Write(&out, format, 120); err != nil {
					t.Fatal(err)
				}
			}
			var n int64
			read.Range(func(any, any) bool { n++; return true })
			return out.String(), n
		}
		check := func(when string, afresh int64) {
			t.Helper()
			want, _ := run("")
			for i, limit := range []int64{afresh, 0} {
				got, reads := run(cache)
				if got != want {
					t.Errorf("%s, %s, run %d: from the cache\n%s\nwant\n%s", name, when, i, got, want)
				}
				if limit >= 0 && reads > limit {
					t.Errorf("%s, %s, run %d: read %d logs afresh, want no more than %d", name, when, i, reads, limit)
				}
			}
		}
		check("first", -1)
		logs, _ := filepath.Glob(filepath.Join(dir, "by", "claude", "projects", "*", "*.jsonl"))
		touch(t, logs[0])
		check("a log touched", 1)
	}
}

// TestGroupsNamedTwice: a log named twice is one session, with the cache
// as without.
func TestGroupsNamedTwice(t *testing.T) {
	log := filepath.Join("testdata", "by", "codex", "sessions", "2026", "03", "02", "rollout-2026-03-02T10-00-00-c1.jsonl")
	none, _ := policy.Preset("none")
	cache := t.TempDir()
	var want string
	for i, dir := range []string{"", cache, cache} {
		var out, errw bytes.Buffer
		opt := Options{Prices: pricing.Default(), Policy: none, CacheDir: dir}
		if _, err := GenerateGroups([]string{log, log}, nil, opt, Grouping{By: "day", ZoneName: "UTC"}, "text", &out, &errw); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			want = out.String()
		} else if out.String() != want {
			t.Errorf("run %d with the cache:\n%s\nwant\n%s", i, out.String(), want)
		}
	}
	if !strings.Contains(want, "1 session, 1 API call") {
		t.Errorf("the log named twice is not one session of one call:\n%s", want)
	}
}

// TestReportFromCache: a report of every session (not grouped), whose logs
// the session index relates as it last scanned them rather than the report
// reading each first, is byte for byte the report read afresh, in each
// format, its first run (which leaves the index its records) and the next.
func TestReportFromCache(t *testing.T) {
	dir := cacheFolder(t)
	pol, _ := policy.Preset("none")
	for _, format := range []string{"json", "text", "csv"} {
		t.Run(format, func(t *testing.T) {
			cache := t.TempDir()
			report := func(cacheDir string) string {
				t.Helper()
				var o, e bytes.Buffer
				w, err := NewWriter(format, &o, pricing.Default().Source)
				if err != nil {
					t.Fatal(err)
				}
				opt := Options{Prices: pricing.Default(), Policy: pol, CacheDir: cacheDir}
				if _, err := Generate([]string{dir}, nil, opt, w, &e); err != nil {
					t.Fatal(err)
				}
				return o.String() + e.String()
			}
			want := report("")
			for _, run := range []string{"first run", "run again"} {
				if got := report(cache); got != want {
					t.Errorf("%s with the index differs from the report read afresh:\n%s\nwant\n%s", run, got, want)
				}
			}
			if files, _ := os.ReadDir(cache); len(files) == 0 {
				t.Error("the first run left the index no records")
			}
		})
	}
}

// Package index summarises many sessions at once, fast enough that a whole
// ~/.claude opens at once: one sizes-only read of every file, on every
// core, gives one Entry per session (its sub-agent logs counted in it),
// and a cache file makes reopening cost a stat and a few bytes per file.
//
// The API, for the session list and for reports over many sessions:
//
//	ix, err := index.Open(index.Options{Prices: prices})
//	entries, warnings, err := ix.Scan(ctx, inputs, progress) // inputs from app.Resolve or app.Discover
//
// Scan's totals are `spillway report`'s to the token: the same reader
// (transcript, sizes only), the same rule for sub-agents (app.Resolve's,
// and a Codex rollout that names its parent moved under it, as app.Each
// does) and the same reconciliation of copies (transcript.Reconcile over
// every file read together). Reconciling only links files that share a
// response (a Claude Code message id, a Codex usage instant, a Codex
// session id), so the index reconciles each such group of files on its
// own, which decides exactly what reconciling them all would, and keeps
// of every file only its summary and those keys: memory grows with the
// number of sessions, not with their size.
//
// What a policy saves needs the texts, which the index does not keep: the
// session list replays its sessions through internal/sessions.
//
// A report that reads every log anyway reads them through a Recorder
// (adopt.go), and Adopt then leaves the cache as a Scan would have,
// without a second read; the report keeps its figures with the records
// (Memo), and its next run scans.
//
// # The cache
//
// One file, index-v4.bin in Options.CacheDir ($SPILLWAY_CACHE_DIR, else
// os.UserCacheDir()/spillway), holds one record per transcript keyed by
// path, size, modification time, inode and a hash of its first 4 KiB. A
// file whose key still matches is not read; one that changed or grew is
// read again (see Grown below), and so is every file it shares responses
// with, since a grown file can change which copy of a response counts. The spillway version, the price table's content and the read
// options are in the file's header: when any differs the cache is rebuilt
// quietly. A file that is not a cache of this format (garbage, truncated,
// a checksum that does not match, another format version) is ignored with
// one warning and rewritten. Writes go to a temporary file renamed into
// place, mode 0600. Options.NoCache neither reads nor writes it: the Index
// then remembers what it read in memory only, as it does when the file
// cannot be written, so that its next Scan (the inspector's rescans) reads
// only what changed. Open begins decoding the file in the background, while
// the caller finds the sessions to scan.
//
// The format is a small versioned binary file, not an embedded database:
// the index is always wanted whole (one Scan reads every record), there
// are no queries, and a header, a payload written field by field (varints,
// result sizes as deltas) and a CRC-32 take no dependency. Decoding is what
// every reopen pays, so it was measured (BenchmarkCacheCodec, 2,000
// sessions of 300 results): the binary payload decodes faster than gob
// and about twenty times faster than encoding/json, and is the smallest
// (6.0 MB against gob's 7.9 and JSON's 16.9). An embedded store (bbolt,
// SQLite) would add a dependency and a page format to read the same
// records whole.
//
// Reopening an unchanged set of files (the same paths, each with its key)
// takes every summary from the cache and skips grouping the files by their
// keys; any other set is grouped again, from the cached keys.
//
// A scan allocates a session's calls per file and lets them go: a batch
// command should run it with GOGC raised as spillway's batch commands do
// (400 cut the scan's CPU time by a third on the benchmark corpus) and a
// soft memory limit (scanindex sets 150 MiB), without which GOGC 400 let
// the heap reach five times the 40 MB that 2,000 sessions' summaries and
// their grouping keep.
//
// Grown: within one Index (the inspector's session list, scanning again
// as sessions are written), a Claude Code or Codex session written to in
// the last 15 minutes is read through a decoder the Index keeps, and when
// it has grown only the lines appended are read, from the end of its last
// complete line: the decoder holds the reader's state (the tool calls
// still open, the responses seen, the compaction segment, Codex's running
// token totals and open request), and the read is ended on a copy, so the
// session is the one a whole read gives (TestLiveSameAsWhole). A file that
// does not end with a complete line and any grown file in a new process
// are read again whole: the reader's state is not something the cache
// file can hold.
//
// Results over a ceiling: each Entry keeps its results' sizes, sorted
// (ResultSizes), 8 bytes per result, so ResultsOver answers exactly for
// any ceiling in bytes by a binary search; a histogram would be smaller
// but answer only at its bucket edges, and the chart of savings by ceiling
// moves a byte at a time.
package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// Options configure an Index.
type Options struct {
	// Prices price the recorded usage; nil is the embedded table.
	Prices *pricing.Table
	// Read are the reader's options (Format, MaxLineBytes); the index
	// always reads sizes and totals only (SizesOnly, TotalsOnly).
	Read transcript.Options
	// Workers read files at once; 0 is one per CPU.
	Workers int
	// CacheDir holds the cache file; "" is $SPILLWAY_CACHE_DIR, else
	// os.UserCacheDir()/spillway.
	CacheDir string
	// NoCache neither reads nor writes the cache.
	NoCache bool
	// FlushOnly leaves writing the cache file to Flush: a caller that
	// keeps memos after a scan writes it once, not twice.
	FlushOnly bool
	// Version is spillway's version: a cache written by another is
	// rebuilt. "" is the build's own.
	Version string
}

// Index scans sessions, remembering what it read in its cache.
type Index struct {
	opt   Options
	mu    sync.Mutex
	cache *cache
	// seen is every file the last Scan read or recalled, for a rescan of
	// what changed (scan.go).
	seen map[string]seenFile
	// live are the decoders of sessions still being written (live.go).
	liveMu sync.Mutex
	live   map[string]*liveFile
	// follow paces the cache's writes while the index is followed (follow.go).
	follow follow
	// keyed holds every file's reconciliation keys between scans (keys.go).
	keyed keyIndex
	// lastFiles are the last Scan's files, whose keys a followed Index
	// sorts ahead of its first rescan.
	lastFiles []scanFile
	// summed are the last Scan's entries by their main file (scan.go).
	summed map[string]*summed
	// loading, until the first Scan takes it, closes once the cache file
	// Open began to read is in opened (with the warning it gave, if any).
	loading     chan struct{}
	opened      *cache
	openWarning *Warning
}

type seenFile struct {
	key fileKey
	own *fileSum
}

// Open returns an index with the options. It begins reading the cache in
// the background, so that decoding it overlaps finding the sessions; the
// first Scan waits for it. With NoCache the index starts knowing nothing
// and remembers what it reads in memory only.
func Open(opt Options) (*Index, error) {
	if opt.Prices == nil {
		opt.Prices = pricing.Default()
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	if opt.Version == "" {
		opt.Version = buildVersion()
	}
	opt.Read.SizesOnly, opt.Read.TotalsOnly = true, true
	opt.Read.Arena = nil // each read has one of the workers' own (scan.go)
	if !opt.NoCache && opt.CacheDir == "" {
		dir, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		opt.CacheDir = dir
	}
	ix := &Index{opt: opt}
	if opt.NoCache {
		ix.cache = memoryCache()
		return ix, nil
	}
	loading := make(chan struct{})
	ix.loading = loading
	crash.Go(func() {
		defer close(loading)
		ix.opened, ix.openWarning = loadCache(opt.CacheDir, ix.header())
	})
	return ix, nil
}

// DefaultCacheDir is $SPILLWAY_CACHE_DIR, else os.UserCacheDir()/spillway.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("SPILLWAY_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no folder for the session index (use --no-cache or set SPILLWAY_CACHE_DIR): %w", err)
	}
	return filepath.Join(d, "spillway"), nil
}

// Tokens are recorded token counts; the four kinds add up to what was billed.
type Tokens = app.Tokens

// ModelTotals are one model's share of a session.
type ModelTotals struct {
	Model    string
	APICalls int
	Recorded Tokens
	CostUSD  *float64 // nil when the model has no price
}

// Entry is one session: its own file and its sub-agents', summed as
// `spillway report` sums them.
type Entry struct {
	Path string
	// Subagents are the sub-agent logs counted in this session, in the
	// order of its Input (a Codex rollout naming this session as its
	// parent last), those that could be read.
	Subagents []string
	Format    transcript.Format
	Version   string // the agent's version, where the log records one
	SessionID string
	Title     string
	// Project is the folder the agent worked in: the cwd the log records,
	// else, for Claude Code, the decoded name of its projects folder
	// (lossy: Claude Code writes both "/" and "." as "-").
	Project string
	// First and Last are the times of the first and last API call, of the
	// session and its sub-agents; zero when no call has one.
	First, Last time.Time
	Models      []string // in order of first use, the session's then its sub-agents'
	APICalls    int
	// CopiedCalls are calls that are copies of responses another session
	// counts; no other figure includes them.
	CopiedCalls int
	Recorded    Tokens
	// CostUSD is nil when nothing was recorded or a model has no price.
	CostUSD        *float64
	UnpricedModels []string
	ByModel        []ModelTotals // sorted by model
	Results        int
	ResultBytes    int64
	LargestResult  int
	// ResultSizes are the results' sizes in bytes, ascending; shared with
	// the index (a session of one file holds its file's own), so read only.
	ResultSizes []int
	Compactions int
	Warnings    int // the reader's, of every file
	// Modified is the latest modification time of its files, and Bytes
	// their size, as the scan found them: a session list marks as live
	// one modified a moment ago.
	Modified time.Time
	Bytes    int64
	// SubagentParts are the Subagents' own figures, in their order: what
	// each adds to the session's (a session list shows them under it).
	SubagentParts []Part
	// Groups name the reconciliation groups of its files, sorted: the
	// files that share a response with one of them (transcript.Reconcile
	// links no others). A replay that must tell which of its calls are
	// copies counted elsewhere reads it with the sessions that share a
	// group with it, and with no other. Empty when it shares none.
	Groups []uint64
}

// Part is one sub-agent log's share of its session.
type Part struct {
	Path     string
	APICalls int
	// CostUSD is nil when it records nothing or a model has no price.
	CostUSD       *float64
	LargestResult int
}

// ResultsOver counts the results larger than ceiling bytes.
func (e *Entry) ResultsOver(ceiling int) int {
	i := sort.SearchInts(e.ResultSizes, ceiling+1)
	return len(e.ResultSizes) - i
}

// Warning is a problem with one file or with the cache that did not stop
// the scan: the file is left out (or the cache rebuilt), the rest goes on.
type Warning struct {
	Path string // "" for a problem with no file of its own
	Err  error
}

// String is the warning for a terminal, escaped. Its message names the
// file, as every error of reading one does.
func (w Warning) String() string { return termtext.Escape(w.Err.Error()) }

func (w Warning) Error() string { return w.Err.Error() }
func (w Warning) Unwrap() error { return w.Err }

// Scan summarises every input: one Entry per input that could be read, in
// the order of inputs, and a Warning for each input or file left out (or
// for a cache that could not be used). progress, when not nil, is told
// how many files are done out of how many, from the reading goroutines,
// one call at a time. Only ctx ends a scan early: the error is then
// ctx.Err(). An entry's slices may be shared with the entries of the
// Index's other scans: read them, do not change them.
func (ix *Index) Scan(ctx context.Context, inputs []app.Input, progress func(done, total int)) ([]Entry, []Warning, error) {
	return ix.scan(ctx, inputs, nil, nil, progress)
}

// scan is Scan, ScanChanged (changed) and Adopt (known).
func (ix *Index) scan(ctx context.Context, inputs []app.Input, changed func(path string) bool, known map[string]recorded, progress func(done, total int)) ([]Entry, []Warning, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var warnings []Warning
	s := newScan(ix, inputs)
	s.changed, s.known = changed, known
	var cacheWarning *Warning
	if opening := ix.loading; opening != nil {
		// Still being read while the files are stat'ed: each waits for it
		// only to look itself up.
		ix.loading = nil
		loaded := make(chan struct{})
		s.cacheLoaded = loaded
		crash.Go(func() {
			defer close(loaded)
			<-opening
			ix.cache, cacheWarning = ix.opened, ix.openWarning
		})
		defer func() { <-loaded }() // also when no file waited for it
	}
	w, set := s.run(ctx, progress)
	if s.cacheLoaded != nil {
		<-s.cacheLoaded
		if cacheWarning != nil {
			warnings = append(warnings, *cacheWarning)
		}
	}
	warnings = append(warnings, w...)
	if err := ctx.Err(); err != nil {
		return nil, warnings, err
	}
	entries, w := s.entries()
	ix.seen = make(map[string]seenFile, len(s.files))
	for _, f := range s.files {
		if f.final != nil {
			ix.seen[f.path] = seenFile{key: f.key, own: f.own}
		}
	}
	warnings = append(warnings, w...)
	ix.lastFiles = s.files
	ix.cache.update(s, set) // in memory only, with NoCache
	if !ix.opt.NoCache && !ix.opt.FlushOnly {
		if w := ix.saveCache(); w != nil {
			warnings = append(warnings, *w)
		}
	}
	return entries, warnings, nil
}

// errChanged says a file changed while it was read.
var errChanged = errors.New("changed while it was read (shrank or was replaced); left out of this scan")

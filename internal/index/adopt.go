package index

import (
	"context"
	"io"
	"maps"
	"sync"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/transcript"
)

// A report reads every log it reports, as a scan would: a Recorder reads
// them for it (app.Options.ReadFile) and keeps of each what the scan would
// have kept, so that Adopt leaves the cache as a Scan would, without
// reading the logs a second time. The next report, and the session list,
// then take them from the cache.

// Recorder reads transcripts for a caller and keeps each file's summary
// and key, as read; safe for concurrent use.
type Recorder struct {
	ix    *Index
	mu    sync.Mutex
	files map[string]recorded
}

// recorded is a file as a Recorder read it.
type recorded struct {
	key fileKey
	own *fileSum
}

// Recorder returns a Recorder for Adopt.
func (ix *Index) Recorder() *Recorder {
	return &Recorder{ix: ix, files: map[string]recorded{}}
}

// ReadFile reads the transcript at path as transcript.ReadFile does, and
// keeps its summary and key when what was read is one version of the
// file. A file it cannot key is read by transcript.ReadFile, for its
// error, and not kept.
func (r *Recorder) ReadFile(path string, o transcript.Options) (*transcript.Session, error) {
	f, info, err := openFile(path)
	if err != nil {
		return transcript.ReadFile(path, o)
	}
	defer f.Close()
	k, _, err := keyOf(f, info, headBytes)
	if err != nil {
		return transcript.ReadFile(path, o)
	}
	sr := &sizedReader{r: f, size: k.Size, peek: peekBytes}
	s, err := transcript.Read(sr, path, o)
	if err != nil {
		return s, err
	}
	if unchanged(f, path, info, k, sr.n) != nil {
		return s, nil // grown while read: the next scan reads it
	}
	cwd := sr.folder()
	if cwd == "" && k.Size > int64(peekBytes) {
		cwd, _ = transcript.ReadCwd(io.NewSectionReader(f, 0, k.Size))
	}
	own := summarize(s, r.ix.opt.Prices)
	own.Project = transcript.Project(path, cwd)
	r.mu.Lock()
	r.files[path] = recorded{key: k, own: own}
	r.mu.Unlock()
	return s, nil
}

// Adopt is Scan for the inputs rec read: a file rec read is taken as it
// read it, any other is looked up or read as Scan does, and the files
// that share responses are reconciled together, reading those again (a
// few hundredths of a month of logs).
func (ix *Index) Adopt(ctx context.Context, inputs []app.Input, rec *Recorder) ([]Entry, []Warning, error) {
	rec.mu.Lock()
	known := maps.Clone(rec.files)
	rec.mu.Unlock()
	return ix.scan(ctx, inputs, nil, known, nil)
}

// Recorded tells whether rec read each of paths as one version of it: a
// log written while it was read is read again by Adopt, and what the
// caller made of the first read is not of the version the index records.
func (r *Recorder) Recorded(paths ...string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		if _, ok := r.files[p]; !ok {
			return false
		}
	}
	return true
}

// Holds counts the paths the cache holds a record of, as it may be now or
// out of date: what a Scan of them would take from it rather than read.
func (ix *Index) Holds(paths []string) int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if opening := ix.loading; opening != nil {
		<-opening
	}
	c := ix.cache
	if c == nil {
		c = ix.opened
	}
	if c == nil {
		return 0
	}
	n := 0
	for _, p := range paths {
		if c.data.Files[p] != nil {
			n++
		}
	}
	return n
}

// CacheFile is the cache file's path: a Warning of it is about the cache,
// not about a log.
func (ix *Index) CacheFile() string { return cachePath(ix.opt.CacheDir) }

// Relating is what the last Scan found of the log at path read by itself: the
// keys by which reconciling links it to other logs (transcript.ReconcileKeys)
// and its session's id, with its parent's for a sub-agent; ok is false for
// a log that Scan did not list. A report that has just scanned its logs
// relates them from these rather than reading each first for them.
func (ix *Index) Relating(path string) (keys []uint64, id, parent string, ok bool) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s, found := ix.seen[path]
	if !found || s.own == nil {
		return nil, "", "", false
	}
	if s.own.Relation == transcript.RelationSubagent {
		parent = s.own.ParentID
	}
	return s.own.keys(), s.own.ID, parent, true
}

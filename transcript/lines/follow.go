package lines

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/spillway-dev/spillway/internal/crash"
)

// Options tunes Follow. The zero value is ready to use.
type Options struct {
	// Poll is the interval of the polling fallback, which is always on
	// because network and virtual file systems send no notifications.
	// Default 1s.
	Poll time.Duration
	// PollOnly disables fsnotify: changes are seen only by polling.
	PollOnly bool
	// Start is the byte offset to start the first file at: 0 is the
	// beginning, -1 the current end. A line that began before Start is
	// skipped; a Start beyond the end of the file restarts it at 0 with a
	// Truncated event. In directory mode it applies only to a file that
	// exists when Follow is called; files found later are read from 0.
	Start int64
	// Match tells, in directory mode, which files are sessions.
	// Default: names ending in ".jsonl".
	Match func(path string) bool
	// BatchLines is the maximum number of lines in one event (default
	// 4096). A batch is also cut once it holds about 4 MiB.
	BatchLines int
	// Ready tells, in directory mode, whether a matching file is one to
	// follow (say, it holds a record of a known format). A file found that
	// is not ready is not switched to; it is looked at again each time its
	// size changes, and switched to once it is ready. Default: every file.
	Ready func(path string) bool
	// MaxLine is the longest line delivered (0: DefaultMaxLine); a longer
	// one is streamed past, never held, and reported by a TooLong event.
	MaxLine int
}

const (
	defaultPoll       = time.Second
	defaultBatchLines = 4096
	maxBatchBytes     = 4 << 20
	// fingerprintLen bytes just before the read offset are kept and compared
	// on every read: a file truncated and refilled to at least the same size
	// cannot be told apart from an appended one by its size alone.
	fingerprintLen = 64
	arenaSize      = 64 << 10
)

func (o Options) withDefaults() Options {
	if o.Poll <= 0 {
		o.Poll = defaultPoll
	}
	if o.BatchLines <= 0 {
		o.BatchLines = defaultBatchLines
	}
	if o.Match == nil {
		o.Match = func(p string) bool { return strings.HasSuffix(filepath.Base(p), ".jsonl") }
	}
	return o
}

// Kind tells what an Event reports.
type Kind int

const (
	// Lines carries complete lines appended to Path; none when the file
	// followed moved (its folder renamed) and Path is its new name.
	Lines Kind = iota + 1
	// Truncated: Path was truncated (or rewritten); reading restarts at
	// offset 0 and an incomplete last line is dropped.
	Truncated
	// Rotated: Path now names another file (rename, atomic replace, delete
	// and recreate). The old file was read to its end; the new one is read
	// from offset 0.
	Rotated
	// Switched: in directory mode, Path is the session now followed, read
	// from Offset. It announces every file, the first one included.
	Switched
	// Error reports a non-fatal problem; following goes on.
	Error
	// TooLong: a line of Size bytes, longer than Options.MaxLine, was
	// skipped, in its place among the lines delivered.
	TooLong
)

func (k Kind) String() string {
	switch k {
	case Lines:
		return "Lines"
	case Truncated:
		return "Truncated"
	case Rotated:
		return "Rotated"
	case Switched:
		return "Switched"
	case Error:
		return "Error"
	case TooLong:
		return "TooLong"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Event is what Follow delivers.
type Event struct {
	Kind Kind
	// Path is the file the event is about.
	Path string
	// Lines holds, for Kind Lines, complete lines without their '\n', in
	// order. They belong to the receiver; lines of one event may share a
	// backing array, but never overlap.
	Lines [][]byte
	// Offset is the file offset just after the last delivered byte: a
	// value to pass as Options.Start to resume.
	Offset int64
	// Err is set for Kind Error.
	Err error
	// Size is, for Kind TooLong, the skipped line's length.
	Size int64
}

// Follow delivers the complete lines of path as they are appended, until ctx
// is done; then the channel is closed. A line is delivered once, whole, after
// its '\n' has been written. A slow receiver makes Follow wait: nothing is
// dropped.
//
// Changes are noticed through fsnotify and, always, by polling every
// opt.Poll. Only appended bytes are read. A truncated or rewritten file is
// read again from its start (Truncated); when path comes to name another
// file, the old one is read to its end first (Rotated).
//
// path may be a file, which must exist, or a directory: then Follow follows
// the newest matching file anywhere below it, waiting for one if there is
// none, and switches to each matching file that appears later, unless that
// file was last modified before the current one was chosen.
func Follow(ctx context.Context, path string, opt Options) (<-chan Event, error) {
	f, err := newFollower(ctx, path, opt)
	if err != nil {
		return nil, fmt.Errorf("follow %s: %w", path, err)
	}
	f.start()
	return f.out, nil
}

type follower struct {
	ctx  context.Context
	opt  Options
	out  chan Event
	file string // file mode: the path followed
	root string // directory mode: the tree searched for sessions

	cur     *tailer
	curPath atomic.Pointer[string] // read by the watch goroutine
	// baseline: a file last modified before it is older than cur, not a
	// session that began since.
	baseline time.Time
	// known holds, in directory mode, the files seen: by path, the file
	// there and the scan that last saw it. A path that comes to name
	// another file (a session rotated to a name that still matches, one
	// deleted and written again, an atomic replace) is a new file.
	known map[string]knownFile
	gen   uint64
	// waiting holds, in directory mode, files passed over because they
	// were not Ready, with the size they had then.
	waiting map[string]int64

	watcher     *fsnotify.Watcher
	watched     map[string]bool
	watchFailed bool
	sig         signals
	wake        chan struct{}
	watchDone   chan struct{}
	notices     []Event // sent at the next opportunity

	buf        []byte
	batch      [][]byte
	batchBytes int
	batchPath  string
	batchOff   int64
	arena      []byte
}

func newFollower(ctx context.Context, path string, opt Options) (*follower, error) {
	opt = opt.withDefaults()
	clean := filepath.Clean(path)
	st, err := os.Stat(clean)
	if err != nil {
		return nil, err
	}
	f := &follower{
		ctx:     ctx,
		opt:     opt,
		out:     make(chan Event, 4),
		wake:    make(chan struct{}, 1),
		watched: make(map[string]bool),
	}
	f.setCurPath("")
	if !opt.PollOnly {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			f.watchFailed = true
			f.notices = append(f.notices, Event{Kind: Error, Path: clean,
				Err: fmt.Errorf("watch: %w (polling every %v)", err, opt.Poll)})
		} else {
			f.watcher = w
		}
	}
	if st.IsDir() {
		f.root = clean
		f.known = make(map[string]knownFile)
		f.waiting = make(map[string]int64)
		var found []foundFile
		f.walk(clean, func(p string, fi fs.FileInfo) {
			f.known[p] = knownFile{fi, f.gen}
			found = append(found, foundFile{p, fi})
		})
		if newest := f.readiest(found); newest != "" {
			ev, err := f.attach(newest, opt.Start, Switched)
			if err != nil {
				f.close()
				return nil, err
			}
			f.notices = append(f.notices, ev...)
		}
		return f, nil
	}
	if !st.Mode().IsRegular() {
		f.close()
		return nil, errors.New("not a regular file")
	}
	f.file = clean
	f.watchDir(filepath.Dir(clean))
	ev, err := f.attach(clean, opt.Start, 0)
	if err != nil {
		f.close()
		return nil, err
	}
	f.notices = append(f.notices, ev...)
	return f, nil
}

func (f *follower) start() {
	if f.watcher != nil {
		f.watchDone = make(chan struct{})
		crash.Go(f.watch)
	}
	crash.Go(f.run)
}

func (f *follower) run() {
	defer func() {
		f.close()
		close(f.out)
	}()
	tick := time.NewTicker(f.opt.Poll)
	defer tick.Stop()
	full := false
	for {
		if f.step(full) != nil {
			return
		}
		full = false
		select {
		case <-f.ctx.Done():
			return
		case <-f.wake:
		case <-tick.C:
			full = true
		}
	}
}

// close releases everything; it waits for the watch goroutine.
func (f *follower) close() {
	if f.watcher != nil {
		f.watcher.Close()
		if f.watchDone != nil {
			<-f.watchDone
		}
	}
	if f.cur != nil {
		f.cur.f.Close()
		f.cur = nil
	}
}

// step brings everything up to date. full is set on poll ticks. It returns
// an error only when ctx is done.
func (f *follower) step(full bool) error {
	evs, resync := f.takeSignals()
	if err := f.sendNotices(); err != nil {
		return err
	}
	if f.root != "" {
		if err := f.scan(evs, full, resync); err != nil {
			return err
		}
	} else {
		for _, ev := range evs {
			f.unwatch(ev.Name)
		}
		if full {
			f.watchDir(filepath.Dir(f.file))
		}
	}
	if f.cur != nil {
		if err := f.poll(full); err != nil {
			return err
		}
	}
	if err := f.flush(); err != nil {
		return err
	}
	return f.sendNotices()
}

// setCurPath tells the watch goroutine which file's writes matter.
func (f *follower) setCurPath(p string) { f.curPath.Store(&p) }

// target is the path given to Follow, cleaned.
func (f *follower) target() string {
	if f.root != "" {
		return f.root
	}
	return f.file
}

// attach makes path the current file, read from start, and returns the
// events announcing it (kind 0: none).
func (f *follower) attach(path string, start int64, kind Kind) ([]Event, error) {
	t, restarted, err := f.open(path, start)
	if err != nil {
		return nil, err
	}
	f.setCur(t)
	var evs []Event
	if kind != 0 {
		evs = append(evs, Event{Kind: kind, Path: path, Offset: t.off})
	}
	if restarted {
		evs = append(evs, Event{Kind: Truncated, Path: path})
	}
	return evs, nil
}

// setCur makes t the current file, closing the previous one.
func (f *follower) setCur(t *tailer) {
	if f.cur != nil && f.cur != t {
		f.cur.f.Close()
	}
	f.cur = t
	// When it was chosen, or its last write if later; with slack for file
	// systems that keep modification times to the second.
	f.baseline = t.info.ModTime()
	if chosen := time.Now().Add(-mtimeSlack); chosen.After(f.baseline) {
		f.baseline = chosen
	}
	f.setCurPath(t.path)
}

// mtimeSlack is how far before the moment a file was chosen another file's
// modification time may fall and still count as written after it.
const mtimeSlack = 2 * time.Second

func (f *follower) flush() error {
	if len(f.batch) == 0 {
		return nil
	}
	ev := Event{Kind: Lines, Path: f.batchPath, Lines: f.batch, Offset: f.batchOff}
	f.batch, f.batchBytes = nil, 0
	return f.send(ev)
}

// emit sends ev after the lines batched so far.
func (f *follower) emit(ev Event) error {
	if err := f.flush(); err != nil {
		return err
	}
	return f.send(ev)
}

func (f *follower) send(ev Event) error {
	select {
	case f.out <- ev:
		return nil
	case <-f.ctx.Done():
		return f.ctx.Err()
	}
}

func (f *follower) sendNotices() error {
	for len(f.notices) > 0 {
		if err := f.emit(f.notices[0]); err != nil {
			return err
		}
		f.notices = f.notices[1:]
	}
	f.notices = nil
	return nil
}

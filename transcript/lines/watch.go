package lines

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// maxQueued bounds the directory events kept while the follower is busy;
// past it they are dropped in favour of a full rescan.
const maxQueued = 4096

// signals carries what the watch goroutine saw to the follower goroutine.
type signals struct {
	mu     sync.Mutex
	events []fsnotify.Event // Create, Remove and Rename, for the tree
	resync bool             // events were lost: rescan everything
	errs   []error
}

// watch turns fsnotify events into wake-ups. Events are only hints: the
// kernel coalesces them and may drop them, so the follower always reads to
// the end of the file and never counts events.
func (f *follower) watch() {
	defer close(f.watchDone)
	for {
		select {
		case <-f.ctx.Done():
			return
		case ev, ok := <-f.watcher.Events:
			if !ok {
				return
			}
			name := filepath.Clean(ev.Name)
			wake := name == *f.curPath.Load()
			if ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 &&
				(f.root != "" || name == filepath.Dir(f.file)) {
				ev.Name = name
				f.sig.mu.Lock()
				if len(f.sig.events) < maxQueued {
					f.sig.events = append(f.sig.events, ev)
				} else {
					f.sig.events, f.sig.resync = nil, true
				}
				f.sig.mu.Unlock()
				wake = true
			}
			if wake {
				f.poke()
			}
		case err, ok := <-f.watcher.Errors:
			if !ok {
				return
			}
			f.sig.mu.Lock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				f.sig.resync = true
			} else if len(f.sig.errs) < 16 {
				f.sig.errs = append(f.sig.errs, err)
			}
			f.sig.mu.Unlock()
			f.poke()
		}
	}
}

func (f *follower) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// takeSignals turns watcher errors into notices and returns the queued
// directory events and whether a full rescan is needed.
func (f *follower) takeSignals() ([]fsnotify.Event, bool) {
	f.sig.mu.Lock()
	evs, resync, errs := f.sig.events, f.sig.resync, f.sig.errs
	f.sig.events, f.sig.resync, f.sig.errs = nil, false, nil
	f.sig.mu.Unlock()
	for _, err := range errs {
		f.notices = append(f.notices, Event{Kind: Error, Path: f.target(), Err: fmt.Errorf("watch: %w", err)})
	}
	return evs, resync
}

// watchDir adds a watch on dir unless it has one. Failures other than a
// missing directory are reported once; polling covers for them.
func (f *follower) watchDir(dir string) {
	if f.watcher == nil || f.watched[dir] {
		return
	}
	err := f.watcher.Add(dir)
	if err == nil {
		f.watched[dir] = true
		return
	}
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	f.watched[dir] = true // don't retry on every poll
	if !f.watchFailed {
		f.watchFailed = true
		f.notices = append(f.notices, Event{Kind: Error, Path: dir,
			Err: fmt.Errorf("watch %s: %w (polling every %v)", dir, err, f.opt.Poll)})
	}
}

// unwatch forgets the watches of a directory that was removed or renamed,
// and of the directories below it, so that they are set up again under
// their new names. fsnotify keeps a moved directory's watches under the old
// paths.
func (f *follower) unwatch(dir string) {
	if !f.watched[dir] {
		return
	}
	prefix := dir + string(filepath.Separator)
	for p := range f.watched {
		if p == dir || strings.HasPrefix(p, prefix) {
			delete(f.watched, p)
			f.watcher.Remove(p) // already gone for a removed directory
		}
	}
}

// knownFile is a file seen in directory mode.
type knownFile struct {
	info fs.FileInfo
	gen  uint64
}

// walk calls found for every matching regular file below dir, watching each
// directory before listing it so that nothing created meanwhile is missed.
// Symbolic links below dir are not followed.
func (f *follower) walk(dir string, found func(path string, fi fs.FileInfo)) {
	f.watchDir(dir)
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	ents, _ := d.ReadDir(-1)
	d.Close()
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			f.walk(p, found)
		case e.Type().IsRegular() && f.opt.Match(p):
			if fi, err := e.Info(); err == nil {
				found(p, fi)
			}
		}
	}
}

// foundFile is a matching file found in directory mode.
type foundFile struct {
	path string
	info fs.FileInfo
}

// readiest is the newest of files that is Ready; the newer ones that are
// not wait until they grow.
func (f *follower) readiest(files []foundFile) string {
	slices.SortFunc(files, func(a, b foundFile) int {
		if c := b.info.ModTime().Compare(a.info.ModTime()); c != 0 {
			return c
		}
		return strings.Compare(b.path, a.path)
	})
	for _, c := range files {
		if f.opt.Ready == nil || f.opt.Ready(c.path) {
			delete(f.waiting, c.path)
			return c.path
		}
		f.waiting[c.path] = c.info.Size()
	}
	return ""
}

// scan looks, in directory mode, for matching files that appeared since the
// last look (or that grew since they were passed over as not Ready), and
// switches to the newest ready one unless it is older than the current
// file. A full scan lists the whole tree; otherwise only what the
// watch goroutine reported is looked at. After lost events (resync) the
// watches of directories that moved away are dropped too.
func (f *follower) scan(evs []fsnotify.Event, full, resync bool) error {
	if resync {
		full = true
		for p := range f.watched {
			if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
				f.unwatch(p)
			}
		}
	}
	var cands []string
	found := func(p string, fi fs.FileInfo) {
		if k, ok := f.known[p]; !ok || !os.SameFile(k.info, fi) {
			cands = append(cands, p)
		}
		f.known[p] = knownFile{fi, f.gen}
	}
	for _, ev := range evs {
		if ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
			f.unwatch(ev.Name)
			delete(f.known, ev.Name) // a file written there later is new
			delete(f.waiting, ev.Name)
		}
		if ev.Op&fsnotify.Create == 0 {
			continue
		}
		fi, err := os.Lstat(ev.Name)
		switch {
		case err != nil:
		case fi.IsDir():
			f.walk(ev.Name, found)
		case fi.Mode().IsRegular() && f.opt.Match(ev.Name):
			found(ev.Name, fi)
		}
	}
	if full {
		f.gen++
		f.walk(f.root, found)
		for p, k := range f.known {
			if k.gen != f.gen {
				delete(f.known, p)
			}
		}
	}

	// Files passed over as not ready are looked at again once they grew.
	for p, size := range f.waiting {
		if fi, err := os.Stat(p); err != nil {
			delete(f.waiting, p)
		} else if fi.Size() != size && !slices.Contains(cands, p) {
			cands = append(cands, p)
		}
	}
	var eligible []foundFile
	for _, p := range cands {
		if f.cur != nil && p == f.cur.path {
			continue // recreated in place: poll handles it as a rotation
		}
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if f.cur != nil && os.SameFile(fi, f.cur.info) {
			if _, err := os.Stat(f.cur.path); errors.Is(err, fs.ErrNotExist) {
				// The current file was moved: follow it under its new name,
				// and say so, though no line came with the move (what was
				// appended meanwhile may already have gone out under the
				// old one).
				f.cur.path = p
				f.setCurPath(p)
				if err := f.emit(Event{Kind: Lines, Path: p, Offset: f.cur.done}); err != nil {
					return err
				}
			}
			continue
		}
		if fi.ModTime().Before(f.baseline) {
			continue
		}
		eligible = append(eligible, foundFile{p, fi})
	}
	best := f.readiest(eligible)
	if best == "" {
		return nil
	}
	if f.cur != nil {
		if err := f.read(f.cur); err != nil {
			return err
		}
	}
	evs2, err := f.attach(best, 0, Switched)
	if err != nil {
		f.notices = append(f.notices, Event{Kind: Error, Path: best, Err: err})
		return nil
	}
	for _, ev := range evs2 {
		if err := f.emit(ev); err != nil {
			return err
		}
	}
	return nil
}

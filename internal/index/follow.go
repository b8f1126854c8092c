package index

import (
	"fmt"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/internal/crash"
)

// While an Index is followed (a session list rescanning as its logs are
// written), writing the whole cache file after every rescan would cost
// more than the rescan itself: on 2,000 sessions it is a 6 MB encode and
// an fsync for each appended line. A followed Index writes it at most
// every savePace instead, in the background, and at once when the last
// follower stops or Flush is called: the file on disk is at most savePace
// behind, and the final state is never lost by a caller that flushes on
// exit.

// savePace is the least time between two cache writes while followed.
var savePace = 5 * time.Second

// follow is an Index's following state; its fields are guarded by the
// Index's mu, the write itself by writeMu (taken under mu, so that writes
// land in the order their states were encoded).
type follow struct {
	followers int
	pending   *time.Timer // a paced write is due
	lastSave  time.Time
	// failed is the paced write's error, told by the next Scan.
	failed  *Warning
	writeMu sync.Mutex
}

// Follow says a caller will rescan the index as its files change, until
// it calls the function returned; each call needs its own stop. While
// any caller follows, the cache is written at most every few seconds;
// the last stop writes what is still unwritten, as Flush does.
func (ix *Index) Follow() (stop func() error) {
	ix.mu.Lock()
	ix.follow.followers++
	ix.mu.Unlock()
	// A scan that reopened an unchanged set of files from the cache did
	// not group them by their keys: sort them now, not at the first
	// change, whose rescan would pay for it.
	crash.Go(func() {
		ix.mu.Lock()
		ix.keyed.update(ix.lastFiles)
		ix.mu.Unlock()
	})
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			ix.mu.Lock()
			ix.follow.followers--
			last := ix.follow.followers == 0
			ix.mu.Unlock()
			if last {
				err = ix.Flush()
			}
		})
		return err
	}
}

// Flush writes what the cache holds that is not on disk yet.
func (ix *Index) Flush() error {
	ix.mu.Lock()
	if ix.follow.pending != nil {
		ix.follow.pending.Stop()
		ix.follow.pending = nil
	}
	ix.follow.failed = nil // written again now
	write := ix.takeCache()
	ix.mu.Unlock()
	if write == nil {
		// A paced write may have taken the state and still be writing:
		// a caller about to exit waits for it, or the file is left half
		// written and the next run replays all it held (31 s on the
		// fleet, against 0.2 s).
		ix.follow.writeMu.Lock()
		ix.follow.writeMu.Unlock()
		ix.mu.Lock()
		failed := ix.follow.failed
		ix.follow.failed = nil
		ix.mu.Unlock()
		if failed != nil {
			return failed
		}
		return nil
	}
	if err := write(); err != nil {
		ix.mu.Lock()
		ix.cache.dirty = true
		ix.mu.Unlock()
		return cacheWarning(ix.opt.CacheDir, err)
	}
	return nil
}

// saveCache writes the cache after a Scan or Replay changed it: at once,
// or, while the Index is followed, when its pace allows. It returns the
// warning of a write that failed, this one's or a paced one's. ix.mu is
// held.
func (ix *Index) saveCache() *Warning {
	fw := &ix.follow
	if w := fw.failed; w != nil {
		fw.failed = nil
		return w
	}
	if fw.followers == 0 {
		if write := ix.takeCache(); write != nil {
			if err := write(); err != nil {
				ix.cache.dirty = true
				return cacheWarning(ix.opt.CacheDir, err)
			}
		}
		return nil
	}
	if ix.cache == nil || !ix.cache.dirty || fw.pending != nil {
		return nil
	}
	delay := max(savePace-time.Since(fw.lastSave), savePace/5)
	fw.pending = time.AfterFunc(delay, func() {
		ix.mu.Lock()
		fw.pending = nil
		write := ix.takeCache()
		ix.mu.Unlock()
		if write == nil {
			return
		}
		// Written while a Scan may run: the encoding is this state's.
		if err := write(); err != nil {
			ix.mu.Lock()
			ix.cache.dirty = true
			fw.failed = cacheWarning(ix.opt.CacheDir, err)
			ix.mu.Unlock()
		}
	})
	return nil
}

// takeCache encodes the cache when it changed and counts it written; the
// function returned writes it (nil: nothing to write). ix.mu is held.
// The write lock is taken here, under mu, and let go by the write: writes
// land in the order their states were encoded.
func (ix *Index) takeCache() func() error {
	c := ix.cache
	if c == nil || !c.dirty || c.memoryOnly || ix.opt.NoCache {
		return nil
	}
	b := encodeCache(&c.data)
	c.dirty = false
	ix.follow.lastSave = time.Now()
	ix.follow.writeMu.Lock()
	return func() error {
		defer ix.follow.writeMu.Unlock()
		return writeCacheFile(ix.opt.CacheDir, b)
	}
}

func cacheWarning(dir string, err error) *Warning {
	return &Warning{Path: cachePath(dir), Err: fmt.Errorf("session index not saved: %w", err)}
}

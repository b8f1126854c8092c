package lines

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/spillway-dev/spillway/internal/crash"
)

// TreeOptions tune WatchTree. The zero value is ready to use.
type TreeOptions struct {
	// Poll is how often a folder that cannot be watched (out of inotify
	// watches, a file system that sends no events, one that does not exist
	// yet) is looked at. Default 2s.
	Poll time.Duration
	// Match tells which files' writes are changes. Default: names ending
	// in ".jsonl", as Follow's.
	Match func(path string) bool
	// Moved is told of every file or folder that appeared, went or was
	// renamed, and of lost events, before the send that says so.
	Moved func()
	// Wrote is told of every matching file written to, by its path,
	// before the send that says so.
	Wrote func(path string)
	// Alone are folders watched without the folders under them (a named
	// file's folder); a folder made in one later is watched with its own.
	Alone []string
}

// WatchTree watches folders and every folder under them, and opt.Alone, (new ones as they
// appear) and sends on the channel returned after a matching file was
// written or anything appeared, went or moved: one send for a burst, until
// ctx ends. Nothing runs while nothing changes. A folder that cannot be
// watched is polled instead, by its listing's names, sizes and times; so is
// everything when no watcher can be made, which the warning says ("" when
// every folder is watched). Symbolic links are not followed.
func WatchTree(ctx context.Context, folders []string, opt TreeOptions) (<-chan struct{}, string, error) {
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.Match == nil {
		opt.Match = func(p string) bool { return strings.HasSuffix(p, ".jsonl") }
	}
	if opt.Moved == nil {
		opt.Moved = func() {}
	}
	tw := &treeWatch{opt: opt, out: make(chan struct{}, 1), polled: map[string]string{}, more: make(chan struct{}, 1)}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		for _, d := range append(slices.Clone(folders), opt.Alone...) {
			tw.polled[d] = listing(d)
		}
		crash.Go(func() { tw.poll(ctx) })
		return tw.out, fmt.Sprintf("no file-system events (%v): polling %d folders every %s", err, len(folders), opt.Poll), nil
	}
	tw.w = w
	for _, d := range folders {
		for _, sub := range Subfolders(d) {
			tw.add(sub)
		}
		if _, err := os.Stat(d); err != nil {
			tw.add(d) // polled until it exists
		}
	}
	for _, d := range opt.Alone {
		tw.add(d)
	}
	crash.Go(func() { tw.run(ctx) })
	crash.Go(func() { tw.poll(ctx) })
	// A folder that does not exist yet is polled until it does, as it
	// would be watched: not one that cannot be watched.
	n := 0
	tw.mu.Lock()
	for d := range tw.polled {
		if _, err := os.Stat(d); err == nil {
			n++
		}
	}
	tw.mu.Unlock()
	warning := ""
	switch {
	case n == 1:
		warning = fmt.Sprintf("1 folder cannot be watched: polled every %s", opt.Poll)
	case n > 1:
		warning = fmt.Sprintf("%d folders cannot be watched: polled every %s", n, opt.Poll)
	}
	return tw.out, warning, nil
}

// Subfolders is root and every folder under it; symbolic links are not
// followed, so a loop is not walked, and what cannot be read is left out.
func Subfolders(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// treeWatch is a running WatchTree.
type treeWatch struct {
	opt    TreeOptions
	w      *fsnotify.Watcher
	out    chan struct{}
	mu     sync.Mutex
	polled map[string]string // folder: its listing when last looked at
	more   chan struct{}     // a folder is polled that was not
}

// add watches d, or polls it when it cannot be watched.
func (tw *treeWatch) add(d string) {
	if err := tw.w.Add(d); err != nil {
		tw.mu.Lock()
		tw.polled[d] = listing(d)
		tw.mu.Unlock()
		select {
		case tw.more <- struct{}{}:
		default:
		}
	}
}

func (tw *treeWatch) poke() {
	select {
	case tw.out <- struct{}{}:
	default:
	}
}

// run turns events into sends; a new folder is watched with its
// subfolders, and what appeared in them before its watch is sent too.
func (tw *treeWatch) run(ctx context.Context) {
	defer tw.w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-tw.w.Events:
			if !ok {
				return
			}
			if ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
				tw.opt.Moved()
			}
			if ev.Op&fsnotify.Create != 0 {
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					for _, d := range Subfolders(ev.Name) {
						tw.add(d)
					}
					tw.poke()
					continue
				}
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if tw.opt.Match(ev.Name) || ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
				if tw.opt.Wrote != nil {
					tw.opt.Wrote(ev.Name)
				}
				tw.poke()
			}
		case err, ok := <-tw.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				tw.opt.Moved() // events were lost: look at everything
				tw.poke()
			}
		}
	}
}

// poll looks at the folders without events; it sleeps while there are none.
func (tw *treeWatch) poll(ctx context.Context) {
	t := time.NewTicker(tw.opt.Poll)
	defer t.Stop()
	for {
		tw.mu.Lock()
		n := len(tw.polled)
		tw.mu.Unlock()
		if n == 0 {
			// Every folder is watched: nothing to do until one is not.
			t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-tw.more:
			}
			t.Reset(tw.opt.Poll)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		changed := false
		tw.mu.Lock()
		for d, was := range tw.polled {
			now := listing(d)
			if now != was {
				changed = true
				tw.polled[d] = now
				if tw.w != nil && now != "" && tw.w.Add(d) == nil {
					delete(tw.polled, d) // it exists now, and is watched
				}
			}
		}
		tw.mu.Unlock()
		if changed {
			tw.opt.Moved()
			tw.poke()
		}
	}
}

// listing is what polling compares: the names, sizes and times of a
// folder's entries; "" when it cannot be read.
func listing(d string) string {
	entries, err := os.ReadDir(d)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "%s\x00%d\x00%d\x00", e.Name(), info.Size(), info.ModTime().UnixNano())
	}
	return b.String()
}

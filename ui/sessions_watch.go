package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/transcript"
)

// A followed session list learns of new and changed logs from the file
// system: one fsnotify watch per folder that holds (or may come to hold)
// a session, every folder under a folder named, new ones as they appear.
// Nothing runs while nothing changes. A folder that cannot be watched
// (out of inotify watches, a file system that refuses) is polled instead,
// every pollEvery, by its listing's names, sizes and times; so is
// everything when no watcher can be made at all.

// SessionWatcher is a SessionSource that can say when its logs change.
type SessionWatcher interface {
	// Watch sends on the channel after a log or folder of the sessions
	// changed (one send for a burst), until ctx ends. The warning names
	// the folders it polls instead of watching ("" when none).
	Watch(ctx context.Context) (<-chan struct{}, string, error)
}

// pollEvery is how often a folder without file-system events is looked at.
var pollEvery = 2 * time.Second

// watchFolders are the folders to watch for the sessions of paths: each
// folder named and every folder under it, each named file's folder, and
// without paths the folders discovery searches and those under them.
func watchFolders(paths []string, env app.Env) []string {
	var roots, files []string
	if len(paths) == 0 {
		getenv := env.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		roots = transcript.Roots(getenv, env.Home)
	}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			roots = append(roots, p)
		} else {
			files = append(files, filepath.Dir(p))
		}
	}
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, r := range roots {
		add(r) // polled until it exists, when it does not
		for _, d := range subfolders(r) {
			add(d)
		}
	}
	for _, d := range files {
		add(d)
		// A named session's sub-agents: <session>/subagents.
		for _, p := range paths {
			if filepath.Dir(p) == d {
				add(filepath.Join(strings.TrimSuffix(p, filepath.Ext(p)), "subagents"))
			}
		}
	}
	return out
}

// subfolders is root and every folder under it; symbolic links are not
// followed, so a loop is not walked.
func subfolders(root string) []string {
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: left out, as the scan warns of it
		}
		if d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// Watch watches the folders of the sessions (see SessionWatcher).
// While it runs, a scan resolves the paths again only after a log or
// folder appeared, went or was renamed: a write changes no file's place.
func (a *AppSessions) Watch(ctx context.Context) (<-chan struct{}, string, error) {
	a.relist.Store(true)
	ch, warning, err := watchSessions(ctx, watchFolders(a.Paths, a.Env), func() { a.relist.Store(true) }, a.wrote)
	if err == nil {
		a.watching.Add(1)
		// Rescanned at every change: the index writes its cache at a
		// pace, and all of it once the watch ends.
		stop := func() error { return nil }
		if a.Index != nil {
			stop = a.Index.Follow()
		}
		a.stopping.Add(1)
		crash.Go(func() {
			defer a.stopping.Done()
			<-ctx.Done()
			a.watching.Add(-1)
			_ = stop() // a failed write is told by the next scan, or at exit by Flush
		})
	}
	return ch, warning, err
}

// folderWatch is a running watch.
type folderWatch struct {
	w      *fsnotify.Watcher
	out    chan struct{}
	mu     sync.Mutex
	polled map[string]string // folder: its listing when last looked at
	more   chan struct{}     // a folder is polled that was not
	// moved is told of every file or folder that appeared, went or was
	// renamed, before the send that says so; wrote of every log written
	// to, by its path.
	moved func()
	wrote func(path string)
}

func watchSessions(ctx context.Context, folders []string, moved func(), wrote func(string)) (<-chan struct{}, string, error) {
	fw := &folderWatch{out: make(chan struct{}, 1), polled: map[string]string{}, more: make(chan struct{}, 1), moved: moved, wrote: wrote}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		for _, d := range folders {
			fw.polled[d] = listing(d)
		}
		crash.Go(func() { fw.poll(ctx) })
		return fw.out, fmt.Sprintf("no file-system events (%v): polling %d folders every %s", err, len(folders), pollEvery), nil
	}
	fw.w = w
	for _, d := range folders {
		fw.add(d)
	}
	crash.Go(func() { fw.run(ctx) })
	crash.Go(func() { fw.poll(ctx) })
	warning := ""
	if n := len(fw.polled); n > 0 {
		warning = fmt.Sprintf("%d folders cannot be watched: polled every %s", n, pollEvery)
	}
	return fw.out, warning, nil
}

// add watches d, or polls it when it cannot be watched; a folder that
// does not exist (yet) is polled until it does.
func (fw *folderWatch) add(d string) {
	if err := fw.w.Add(d); err != nil {
		fw.mu.Lock()
		fw.polled[d] = listing(d)
		fw.mu.Unlock()
		select {
		case fw.more <- struct{}{}:
		default:
		}
	}
}

func (fw *folderWatch) poke() {
	select {
	case fw.out <- struct{}{}:
	default:
	}
}

// run turns events into sends; a new folder is watched with its
// subfolders, and what appeared in them before its watch is sent too.
func (fw *folderWatch) run(ctx context.Context) {
	defer fw.w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-fw.w.Events:
			if !ok {
				return
			}
			if ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
				fw.moved()
			}
			if ev.Op&fsnotify.Create != 0 {
				if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
					for _, d := range subfolders(ev.Name) {
						fw.add(d)
					}
					fw.poke()
					continue
				}
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if strings.HasSuffix(ev.Name, ".jsonl") || ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 {
				if fw.wrote != nil {
					fw.wrote(ev.Name)
				}
				fw.poke()
			}
		case err, ok := <-fw.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				fw.moved() // events were lost: look at everything
				fw.poke()
			}
		}
	}
}

// poll looks at the folders without events; it sleeps while there are none.
func (fw *folderWatch) poll(ctx context.Context) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		fw.mu.Lock()
		n := len(fw.polled)
		fw.mu.Unlock()
		if n == 0 {
			// Every folder is watched: nothing to do until one is not.
			t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-fw.more:
			}
			t.Reset(pollEvery)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		changed := false
		fw.mu.Lock()
		for d, was := range fw.polled {
			now := listing(d)
			if now != was {
				changed = true
				fw.polled[d] = now
				if fw.w != nil && now != "" && fw.w.Add(d) == nil {
					delete(fw.polled, d) // it exists now, and is watched
				}
			}
		}
		fw.mu.Unlock()
		if changed {
			fw.moved()
			fw.poke()
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

// wrote notes that the watch saw the log at path written to. Logs are
// noted by name, not path: a folder named through a link or a relative
// path gives the same names as the paths resolved, and two logs of one
// name are only both looked at.
func (a *AppSessions) wrote(path string) {
	a.writtenMu.Lock()
	if a.written == nil {
		a.written = map[string]bool{}
	}
	a.written[filepath.Base(path)] = true
	a.writtenMu.Unlock()
}

// sinceLastScan says which logs may have changed since the last index
// scan, and starts noting them again for the next: nil (all of them) when
// no watch runs or files appeared, went or moved.
func (a *AppSessions) sinceLastScan(relisted bool) func(path string) bool {
	a.writtenMu.Lock()
	written := a.written
	a.written = nil
	a.writtenMu.Unlock()
	if relisted || a.watching.Load() == 0 {
		return nil
	}
	return func(path string) bool { return written[filepath.Base(path)] }
}

package sessions

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/transcript"
	"github.com/spillway-dev/spillway/transcript/lines"
)

// A followed session list learns of new and changed logs from the file
// system, through transcript/lines' watch of the folders that hold (or may
// come to hold) a session: nothing runs while nothing changes, and a
// folder that cannot be watched is polled every pollEvery.

// Watcher is a Source that can say when its logs change.
type Watcher interface {
	// Watch sends on the channel after a log or folder of the sessions
	// changed (one send for a burst), until ctx ends. The warning names
	// the folders it polls instead of watching ("" when none).
	Watch(ctx context.Context) (<-chan struct{}, string, error)
}

// pollEvery is how often a folder without file-system events is looked at.
var pollEvery = 2 * time.Second

// watchFolders are the folders to watch for the sessions of paths: trees,
// each folder named and every folder under it (without paths, the
// folders discovery searches), and alone, each named file's folder and
// its sub-agents' folder.
func watchFolders(paths []string, env app.Env) (trees, alone []string) {
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
	add := func(to *[]string, d string) {
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			*to = append(*to, d)
		}
	}
	for _, r := range roots {
		add(&trees, r)
	}
	for _, d := range files {
		add(&alone, d)
		// A named session's sub-agents: <session>/subagents.
		for _, p := range paths {
			if filepath.Dir(p) == d {
				add(&alone, transcript.SubagentsDir(p))
			}
		}
	}
	return trees, alone
}

// Watch watches the folders of the sessions (see Watcher).
// While it runs, a scan resolves the paths again only after a log or
// folder appeared, went or was renamed: a write changes no file's place.
func (a *Service) Watch(ctx context.Context) (<-chan struct{}, string, error) {
	a.relist.Store(true)
	trees, alone := watchFolders(a.Paths, a.Env)
	ch, warning, err := lines.WatchTree(ctx, trees, lines.TreeOptions{
		Poll: pollEvery, Alone: alone, Moved: func() { a.relist.Store(true) }, Wrote: a.wrote})
	if err == nil {
		a.watching.Add(1)
		// Rescanned at every change: the index writes its cache at a
		// pace, and all of it once the watch ends.
		stop := a.Index.Follow()
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

// wrote notes that the watch saw the log at path written to. Logs are
// noted by name, not path: a folder named through a link or a relative
// path gives the same names as the paths resolved, and two logs of one
// name are only both looked at.
func (a *Service) wrote(path string) {
	a.writtenMu.Lock()
	if a.written == nil {
		a.written = map[string]bool{}
	}
	a.written[filepath.Base(path)] = true
	a.writtenMu.Unlock()
}

// sinceLastScan says which logs may have changed since the last scan,
// and starts noting them again for the next: nil (all of them) when
// no watch runs or files appeared, went or moved.
func (a *Service) sinceLastScan(relisted bool) func(path string) bool {
	a.writtenMu.Lock()
	written := a.written
	a.written = nil
	a.writtenMu.Unlock()
	if relisted || a.watching.Load() == 0 {
		return nil
	}
	return func(path string) bool { return written[filepath.Base(path)] }
}

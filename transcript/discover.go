package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// Roots returns the folders where agents keep their logs, in the order
// users expect: $CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects and
// ~/.config/claude/projects), then $CODEX_HOME/sessions (else ~/.codex/sessions).
// getenv and home are passed in so tests need not touch the real environment.
func Roots(getenv func(string) string, home string) []string {
	var roots []string
	if dirs := getenv("CLAUDE_CONFIG_DIR"); dirs != "" {
		for _, d := range strings.Split(dirs, ",") {
			if d = strings.TrimSpace(d); d != "" {
				roots = append(roots, filepath.Join(d, "projects"))
			}
		}
	} else if home != "" {
		roots = append(roots, filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".config", "claude", "projects"))
	}
	if d := getenv("CODEX_HOME"); d != "" {
		roots = append(roots, filepath.Join(d, "sessions"))
	} else if home != "" {
		roots = append(roots, filepath.Join(home, ".codex", "sessions"))
	}
	return roots
}

// File is a session file found on disk.
type File struct {
	Path    string
	ModTime time.Time
	Size    int64
	// Err, when set, says why the file is not to be read: it is no
	// regular file (a FIFO, which would keep a reader waiting forever, a
	// device, a socket), nor a link to one; or it is a folder that cannot
	// be listed, whose sessions are left out.
	Err error
}

// Find lists the *.jsonl files under each root, recursively, newest first.
// Roots that do not exist are skipped; a root that is a link to a folder
// is walked, links to folders below it are not. A file that is not a regular file,
// nor a link to one, and a folder below a root that cannot be read, are
// listed with their Err set.
func Find(roots ...string) ([]File, error) {
	files, _, err := FindListing(roots...)
	return files, err
}

// Listing is what a walk saw of the folders it read whole: each one's
// entries in name order (as os.ReadDir gives them), by its cleaned path.
// A folder the walk did not enter (not below a root, reached through a
// link, or unreadable) is not in it.
type Listing map[string][]fs.DirEntry

// FindListing is Find, and the Listing of every folder it walked: a caller
// that looks for files beside the sessions found asks it instead of
// listing each folder again.
func FindListing(roots ...string) ([]File, Listing, error) {
	// The files' times are asked for on every core while the walk goes on,
	// a batch of files at a time: one call for each file found.
	type found struct {
		path string
		d    fs.DirEntry
	}
	batches := make(chan []found, 16)
	var files []File
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		crash.GoIn(&wg, func() {
			var mine []File
			for batch := range batches {
				for _, f := range batch {
					info, err := f.d.Info()
					if err != nil {
						continue // removed while walking
					}
					file := File{Path: f.path, ModTime: info.ModTime(), Size: info.Size()}
					if info.Mode()&fs.ModeSymlink != 0 {
						if target, err := os.Stat(f.path); err == nil {
							info = target
							file.ModTime, file.Size = target.ModTime(), target.Size()
						} else {
							file.Err = err
						}
					}
					if file.Err == nil && !info.Mode().IsRegular() {
						file.Err = fmt.Errorf("%s is %s, not a regular file: skipped", f.path, safefile.Kind(info.Mode()))
					}
					mine = append(mine, file)
				}
			}
			mu.Lock()
			files = append(files, mine...)
			mu.Unlock()
		})
	}
	var batch []found
	var unread []File // folders below a root that cannot be listed
	listing := Listing{}
	err := func() error {
		defer func() {
			if len(batch) > 0 {
				batches <- batch
			}
			close(batches)
			wg.Wait()
		}()
		for _, root := range roots {
			if info, err := os.Lstat(root); err == nil && info.Mode()&fs.ModeSymlink != 0 {
				// A root that is a link is followed, as ls and find -H
				// follow the paths they are given (~/.claude is often a
				// link into a dotfiles folder); a trailing separator makes
				// the walk's Lstat resolve it. Links below it are not.
				root += string(filepath.Separator)
			}
			// This root's folders; one listed through an earlier root is
			// kept as first seen, entries once.
			walked := Listing{}
			failed := map[string]bool{}
			err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
				if err != nil {
					if d != nil && d.IsDir() {
						// Read in part or not at all: not a listing to trust.
						failed[filepath.Clean(path)] = true
					}
					if errors.Is(err, fs.ErrNotExist) {
						return nil // removed while walking
					}
					if path != root {
						// A folder below the root that cannot be listed
						// (no permission, a name too long, an I/O error)
						// is listed with its Err, as a file that is not
						// one to read: what it holds is left out, and
						// said so, and the rest is read.
						unread = append(unread, File{Path: path, Err: fmt.Errorf("%s cannot be read (%w): the sessions in it are left out", path, err)})
						return nil
					}
					return err
				}
				if path != root {
					parent := filepath.Dir(path)
					walked[parent] = append(walked[parent], d)
				}
				if d.IsDir() {
					if c := filepath.Clean(path); walked[c] == nil {
						walked[c] = []fs.DirEntry{}
					}
					return nil
				}
				if strings.HasSuffix(d.Name(), ".jsonl") {
					if batch = append(batch, found{path, d}); len(batch) == 64 {
						batches <- batch
						batch = nil
					}
				}
				return nil
			})
			if err != nil {
				return fmt.Errorf("look for sessions in %s: %w", root, err)
			}
			for dir, entries := range walked {
				if _, seen := listing[dir]; !seen && !failed[dir] {
					listing[dir] = entries
				}
			}
		}
		return nil
	}()
	if err != nil {
		return nil, nil, err
	}
	files = append(files, unread...)
	slices.SortStableFunc(files, func(a, b File) int {
		if c := b.ModTime.Compare(a.ModTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	return files, listing, nil
}

// IsSubagent tells whether path is a Claude Code sub-agent log
// (agent-<id>.jsonl beside the session, or under <session>/subagents/).
func IsSubagent(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, "agent-") && strings.HasSuffix(base, ".jsonl") ||
		filepath.Base(filepath.Dir(path)) == "subagents"
}

// IsSession tells whether path names a session log to follow or open.
func IsSession(path string) bool {
	return strings.HasSuffix(path, ".jsonl") && !IsSubagent(path)
}

package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
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
}

// Find lists the *.jsonl files under each root, recursively, newest first.
// Roots that do not exist are skipped.
func Find(roots ...string) ([]File, error) {
	var files []File
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || (errors.Is(err, fs.ErrPermission) && path != root) {
					return nil
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil // removed while walking
			}
			files = append(files, File{Path: path, ModTime: info.ModTime(), Size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("look for sessions in %s: %w", root, err)
		}
	}
	sort.SliceStable(files, func(i, j int) bool {
		if !files[i].ModTime.Equal(files[j].ModTime) {
			return files[i].ModTime.After(files[j].ModTime)
		}
		return files[i].Path < files[j].Path
	})
	return files, nil
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

package spillview

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spillway-dev/spillway/internal/safefile"
)

// Root is a folder an agent spills results to: Dir, a path below Base,
// the folder that agent writes in. A relative Base is the working folder;
// Dir's first element may be a pattern ("dsh-spill-*"), standing for
// every folder it matches.
type Root struct {
	Base, Dir string
}

// AgentRoots are the folders the agents spill results to, for the session
// whose transcript is at transcript: Claude Code's
// <project>/<session>/tool-results beside the transcript; harness-rs's
// .harness/spill and AgentScope's large_tool_results (and, before 2026-07,
// /large_tool_results), relative to the folder the agent worked in, which
// is where relative paths are resolved; DeepSeek Harness's private
// dsh-spill-* folders in the temporary folder.
func AgentRoots(transcript string) []Root {
	roots := []Root{
		{".", filepath.Join(".harness", "spill")},
		{".", "large_tool_results"},
		{string(filepath.Separator), "large_tool_results"},
		{os.TempDir(), "dsh-spill-*"},
	}
	if transcript != "" {
		session := strings.TrimSuffix(filepath.Base(transcript), filepath.Ext(transcript))
		roots = append(roots, Root{filepath.Dir(transcript), filepath.Join(session, "tool-results")})
	}
	return roots
}

// OpenSpilled opens the file path names, with ".." and links resolved as
// the system would, when that is a regular file inside one of roots, and
// returns it with the path it resolved to; otherwise the error says why
// it is not to be opened. A spill folder that is a link, or is reached
// through one below its Base, is no spill folder: a transcript whose
// tool-results or .harness/spill leads to / opens nothing through it.
//
// The check and the open are one: the file is opened inside its spill
// folder, which is opened inside its Base (os.Root), so no link or folder
// swapped in after the paths were resolved leads anywhere else.
func OpenSpilled(path string, roots []Root) (*os.File, fs.FileInfo, string, error) {
	real, err := resolve(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, "", fmt.Errorf("%s is not on this machine", path)
		}
		return nil, nil, "", fmt.Errorf("%s cannot be resolved: %w", path, err)
	}
	for _, root := range roots {
		f, info, err := root.open(real)
		if errors.Is(err, errOutside) {
			continue
		}
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s %w", path, err)
		}
		return f, info, real, nil
	}
	return nil, nil, "", fmt.Errorf("%s is not in a folder the agent spills to", path)
}

// errOutside says a file is not in a root.
var errOutside = errors.New("not in the folder")

// open opens real, a resolved path, when it lies inside r.
func (r Root) open(real string) (*os.File, fs.FileInfo, error) {
	base, err := resolve(r.Base)
	if err != nil {
		return nil, nil, errOutside
	}
	rel, ok := below(base, real)
	if !ok {
		return nil, nil, errOutside
	}
	dir := r.Dir
	if first, rest, _ := strings.Cut(dir, string(filepath.Separator)); strings.ContainsAny(first, "*?[") {
		got, _, deeper := strings.Cut(rel, string(filepath.Separator))
		if ok, _ := filepath.Match(first, got); !ok || !deeper {
			return nil, nil, errOutside
		}
		dir = filepath.Join(got, rest)
	}
	// real is resolved: when it lies below the spill folder's name, no
	// link leads there; when that folder is a link, it does not.
	lexical := filepath.Join(base, dir)
	name, ok := below(lexical, real)
	if !ok {
		return nil, nil, errOutside
	}
	want, err := os.Lstat(lexical)
	if err != nil || !want.IsDir() {
		return nil, nil, fmt.Errorf("has a spill folder that cannot be used: %s is not a folder", lexical)
	}
	b, err := os.OpenRoot(base)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot be read: %w", err)
	}
	defer b.Close()
	d, err := b.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("has a spill folder that cannot be used: %s: %w", lexical, err)
	}
	defer d.Close()
	// Base may be /: the folder opened must be the one looked at.
	if got, err := d.Stat("."); err != nil || !os.SameFile(got, want) {
		return nil, nil, fmt.Errorf("has a spill folder that cannot be used: %s changed while it was opened", lexical)
	}
	f, info, err := safefile.OpenIn(d, name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said by OpenSpilled
		}
		if errors.Is(err, safefile.ErrNotRegular) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("cannot be read: %w", err)
	}
	return f, info, nil
}

// resolve makes path absolute without cleaning it first, so that ".."
// after a link climbs from where the link leads, then resolves its links.
func resolve(path string) (string, error) {
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		path = wd + string(filepath.Separator) + path
	}
	return filepath.EvalSymlinks(path)
}

// below is real's path inside dir, when it lies strictly below it.
func below(dir, real string) (string, bool) {
	rel, err := filepath.Rel(dir, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

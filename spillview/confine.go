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

// AgentRoots are the folders the agents spill results to, for the session
// whose transcript is at transcript: Claude Code's
// <project>/<session>/tool-results beside the transcript; harness-rs's
// .harness/spill and AgentScope's large_tool_results (and, before 2026-07,
// /large_tool_results), relative to the folder the agent worked in, which
// is where relative paths are resolved; DeepSeek Harness's private
// dsh-spill-* folders in the temporary folder. A root whose last element
// holds a '*' stands for every folder it matches.
func AgentRoots(transcript string) []string {
	roots := []string{
		filepath.Join(".harness", "spill"),
		"large_tool_results",
		string(filepath.Separator) + "large_tool_results",
		filepath.Join(os.TempDir(), "dsh-spill-*"),
	}
	if transcript != "" {
		roots = append(roots, filepath.Join(strings.TrimSuffix(transcript, filepath.Ext(transcript)), "tool-results"))
	}
	return roots
}

// Confine is the file path names, with ".." and links resolved as the
// system would, when that is a regular file inside one of roots (resolved
// alike; relative ones against the working folder); otherwise an error
// says why it is not to be opened. It reads no file.
func Confine(path string, roots []string) (string, error) {
	real, err := resolve(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s is not on this machine", path)
		}
		return "", fmt.Errorf("%s cannot be resolved: %w", path, err)
	}
	inside := false
	for _, root := range roots {
		if within(real, root) {
			inside = true
			break
		}
	}
	if !inside {
		return "", fmt.Errorf("%s is not in a folder the agent spills to", path)
	}
	info, err := os.Lstat(real)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is %s, not a regular file", path, safefile.Kind(info.Mode()))
	}
	return real, nil
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

// within reports whether real, a resolved path, lies below root.
func within(real, root string) bool {
	pattern := ""
	if base := filepath.Base(root); strings.ContainsAny(base, "*?[") {
		root, pattern = filepath.Dir(root), base
	}
	dir, err := resolve(root)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(dir, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	if pattern == "" {
		return true
	}
	first, rest, deeper := strings.Cut(rel, string(filepath.Separator))
	ok, _ := filepath.Match(pattern, first)
	return ok && deeper && rest != ""
}

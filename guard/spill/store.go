// Package spill stores the files a replayed spill writes, in a folder of the
// user's cache, where nothing a transcript says can lead outside it.
package spill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// Dir writes spill files under Root/<session>/<policy>/, folders 0700
// and files 0600. Names are deterministic, so a replay run twice writes
// each file once.
type Dir struct {
	Root    string
	Session string
	Policy  string
}

// DefaultRoot is the user's cache folder for spill files.
func DefaultRoot() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache folder for spill files: %w", err)
	}
	return filepath.Join(dir, "spillway", "spill"), nil
}

// Write stores f. Its File is a path of names made by escapeName; the
// session and policy names are escaped here. Nothing escapes the store,
// and nothing already in it is followed or read unless it is a regular
// file: a link, FIFO, device or folder where a folder or the file should
// be is refused. The file is written fresh beside its name and renamed
// over it, so a reader never sees half of it.
func (s Dir) Write(f harness.SpillFile) (string, error) {
	elems, err := s.elems(f)
	if err != nil {
		return "", err
	}
	return writeUnder(s.Root, elems, f.Content)
}

// WriteAt writes f where its locator names it, as the harness would:
// relative to base when the locator is relative (the agent's working
// folder). The locator must end in f.File; what it names above that is the
// root, made 0700 when missing and never a link, and under it f.File is
// written as Write writes it.
func WriteAt(base string, f harness.SpillFile) (string, error) {
	elems := strings.Split(f.File, "/")
	for _, e := range elems {
		if !harness.ValidName(e) {
			return "", fmt.Errorf("spill file %q: %q is not an escaped file name", f.File, e)
		}
	}
	loc := filepath.FromSlash(f.Locator)
	if !filepath.IsAbs(loc) {
		loc = filepath.Join(base, loc)
	}
	loc = filepath.Clean(loc)
	suffix := string(filepath.Separator) + filepath.Join(elems...)
	if !filepath.IsAbs(loc) || !strings.HasSuffix(loc, suffix) || len(loc) == len(suffix) {
		return "", fmt.Errorf("spill file %q is not where its locator %q leads", f.File, f.Locator)
	}
	return writeUnder(strings.TrimSuffix(loc, suffix), elems, f.Content)
}

// writeUnder writes content to root/elems..., making the folders between.
func writeUnder(root string, elems []string, content string) (string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	if info, err := os.Lstat(root); err != nil {
		return "", err
	} else if !info.IsDir() {
		return "", fmt.Errorf("%s is %s, not a folder", root, safefile.Kind(info.Mode()))
	}
	dir := root
	for _, e := range elems[:len(elems)-1] {
		dir = filepath.Join(dir, e)
		if err := mkdirHere(dir); err != nil {
			return "", err
		}
	}
	full := filepath.Join(dir, elems[len(elems)-1])
	switch same, err := holds(full, content); {
	case err != nil:
		return "", err
	case same:
		return full, nil
	}
	tmp, err := os.CreateTemp(dir, ".spill-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.WriteString(content)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), full)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", werr
	}
	return full, nil
}

// Path is where Write stores f, without writing anything.
func (s Dir) Path(f harness.SpillFile) (string, error) {
	elems, err := s.elems(f)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{s.Root}, elems...)...), nil
}

// elems are the path elements of f under Root.
func (s Dir) elems(f harness.SpillFile) ([]string, error) {
	elems := []string{harness.EscapeName(s.Session), harness.EscapeName(s.Policy)}
	parts := strings.Split(f.File, "/")
	for _, e := range parts {
		if !harness.ValidName(e) {
			return nil, fmt.Errorf("spill file %q: %q is not an escaped file name", f.File, e)
		}
	}
	return append(elems, parts...), nil
}

// mkdirHere makes dir, 0700, unless a real folder is there already; a link
// there is not followed.
func mkdirHere(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is %s, not a folder", dir, safefile.Kind(info.Mode()))
	}
	return nil
}

// holds reports whether path is a regular file holding exactly content; a
// missing file does not. Anything else at path is an error: it is neither
// read nor replaced.
func holds(path, content string) (bool, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !info.Mode().IsRegular() {
		return false, fmt.Errorf("%s is %s, not a regular file", path, safefile.Kind(info.Mode()))
	}
	if info.Size() != int64(len(content)) {
		return false, nil
	}
	f, _, err := safefile.OpenRegular(path, info)
	if err != nil {
		return false, err
	}
	defer f.Close()
	old, err := io.ReadAll(io.LimitReader(f, int64(len(content))+1))
	return err == nil && bytes.Equal(old, []byte(content)), nil
}

// Package spill stores the files a replayed spill writes, in a folder of the
// user's cache, where nothing a transcript says can lead outside it.
package spill

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
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
// be is refused. Every step is taken inside the store opened as an
// os.Root, so a folder swapped for a link after it was looked at leads
// nowhere else. The file is written fresh beside its name and renamed
// over it, so a reader never sees half of it.
func (s Dir) Write(f harness.SpillFile) (string, error) {
	elems, err := s.elems(f)
	if err != nil {
		return "", err
	}
	path, _, err := writeUnder(s.Root, elems, f.Content)
	return path, err
}

// WriteAt writes f where its locator names it, as the harness would:
// relative to base when the locator is relative (the agent's working
// folder). The locator must end in f.File; what it names above that is the
// root, made 0700 when missing and never a link, and under it f.File is
// written as Write writes it. created reports that no file was there
// before, for a caller that takes it back when what it wrote it for fails.
func WriteAt(base string, f harness.SpillFile) (path string, created bool, err error) {
	elems := strings.Split(f.File, "/")
	for _, e := range elems {
		if !harness.ValidName(e) {
			return "", false, fmt.Errorf("spill file %q: %q is not an escaped file name", f.File, e)
		}
	}
	loc := filepath.FromSlash(f.Locator)
	if !filepath.IsAbs(loc) {
		loc = filepath.Join(base, loc)
	}
	loc = filepath.Clean(loc)
	suffix := string(filepath.Separator) + filepath.Join(elems...)
	if !filepath.IsAbs(loc) || !strings.HasSuffix(loc, suffix) || len(loc) == len(suffix) {
		return "", false, fmt.Errorf("spill file %q is not where its locator %q leads", f.File, f.Locator)
	}
	return writeUnder(strings.TrimSuffix(loc, suffix), elems, f.Content)
}

// writeUnder writes content to rootPath/elems..., making the folders
// between; rootPath is made 0700 when missing and is never a link.
// created reports that no file was at the name before.
func writeUnder(rootPath string, elems []string, content string) (path string, created bool, err error) {
	if err := os.MkdirAll(rootPath, 0o700); err != nil {
		return "", false, err
	}
	if info, err := os.Lstat(rootPath); err != nil {
		return "", false, err
	} else if !info.IsDir() {
		return "", false, fmt.Errorf("%s is %s, not a folder", rootPath, safefile.Kind(info.Mode()))
	}
	root, err := os.OpenRoot(rootPath)
	if err != nil {
		return "", false, err
	}
	defer root.Close()
	dir := ""
	for _, e := range elems[:len(elems)-1] {
		dir = filepath.Join(dir, e)
		if err := mkdirHere(root, dir); err != nil {
			return "", false, err
		}
	}
	name := filepath.Join(dir, elems[len(elems)-1])
	full := filepath.Join(rootPath, name)
	exists, same, err := holds(root, name, content)
	switch {
	case err != nil:
		return "", false, err
	case same:
		return full, false, nil
	}
	tmp, err := createIn(root, dir)
	if err != nil {
		return "", false, err
	}
	_, werr := tmp.WriteString(content)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	tmpName := filepath.Join(dir, filepath.Base(tmp.Name()))
	if werr == nil {
		werr = root.Rename(tmpName, name)
	}
	if werr != nil {
		root.Remove(tmpName)
		return "", false, werr
	}
	return full, !exists, nil
}

// createIn makes a new temporary file in dir inside root, 0600.
func createIn(root *os.Root, dir string) (*os.File, error) {
	for range 100 {
		var b [6]byte
		rand.Read(b[:])
		f, err := root.OpenFile(filepath.Join(dir, ".spill-"+hex.EncodeToString(b[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
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

// mkdirHere makes dir inside root, 0700, unless a real folder is there
// already; a link there is not followed.
func mkdirHere(root *os.Root, dir string) error {
	err := root.Mkdir(dir, 0o700)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	info, err := root.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is %s, not a folder", filepath.Join(root.Name(), dir), safefile.Kind(info.Mode()))
	}
	return nil
}

// holds reports whether a file is at name inside root, and whether it is
// a regular file holding exactly content. Anything else there is an
// error: it is neither read nor replaced.
func holds(root *os.Root, name, content string) (exists, same bool, err error) {
	path := filepath.Join(root.Name(), name)
	info, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	if !info.Mode().IsRegular() {
		return true, false, fmt.Errorf("%s is %s, not a regular file", path, safefile.Kind(info.Mode()))
	}
	if info.Size() != int64(len(content)) {
		return true, false, nil
	}
	f, got, err := safefile.OpenIn(root, name)
	if err != nil {
		return true, false, err
	}
	defer f.Close()
	if !os.SameFile(info, got) {
		return true, false, nil // replaced since: written fresh
	}
	old, err := io.ReadAll(io.LimitReader(f, int64(len(content))+1))
	return true, err == nil && bytes.Equal(old, []byte(content)), nil
}

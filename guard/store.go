package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spillway-dev/spillway/internal/safefile"
)

// DirStore writes spill files under Root/<session>/<policy>/, folders 0700
// and files 0600. Names are deterministic, so a replay run twice writes
// each file once.
type DirStore struct {
	Root    string
	Session string
	Policy  string
}

// DefaultSpillRoot is the user's cache folder for spill files.
func DefaultSpillRoot() (string, error) {
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
func (s DirStore) Write(f SpillFile) (string, error) {
	elems := []string{escapeName(s.Session), escapeName(s.Policy)}
	parts := strings.Split(f.File, "/")
	for _, e := range parts {
		if !validName(e) {
			return "", fmt.Errorf("spill file %q: %q is not an escaped file name", f.File, e)
		}
	}
	elems = append(elems, parts...)
	if err := os.MkdirAll(s.Root, 0o700); err != nil {
		return "", err
	}
	dir := s.Root
	for _, e := range elems[:len(elems)-1] {
		dir = filepath.Join(dir, e)
		if err := mkdirHere(dir); err != nil {
			return "", err
		}
	}
	full := filepath.Join(dir, elems[len(elems)-1])
	switch same, err := holds(full, f.Content); {
	case err != nil:
		return "", err
	case same:
		return full, nil
	}
	tmp, err := os.CreateTemp(dir, ".spill-*")
	if err != nil {
		return "", err
	}
	_, werr := tmp.WriteString(f.Content)
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

// maxName is the longest name escapeName makes, within every common file
// system's limit of 255 bytes.
const maxName = 240

// escapeName makes s one file name, injectively: ASCII letters, digits,
// '.', '-' and '_' stay, so the names of ordinary ids are the harness's
// own; every other byte becomes ~XX (hex); "", "." and ".." become "~",
// "~2E" and "~2E~2E". A name longer than maxName keeps its start and ends
// in ~ and 16 hex digits of its SHA-256.
func escapeName(s string) string {
	switch s {
	case "":
		return "~"
	case ".":
		return "~2E"
	case "..":
		return "~2E~2E"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; safeByte(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "~%02X", c)
		}
	}
	out := b.String()
	if len(out) > maxName {
		sum := sha256.Sum256([]byte(s))
		out = out[:maxName-17] + "~" + hex.EncodeToString(sum[:8])
	}
	return out
}

func safeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
}

// validName reports whether e could have come from escapeName: one path
// element that names nothing but itself.
func validName(e string) bool {
	if e == "" || e == "." || e == ".." || len(e) > maxName {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !safeByte(c) && c != '~' {
			return false
		}
	}
	return true
}

// Package spill stores the files a replayed spill writes, in a folder of the
// user's cache, where nothing a transcript says can lead outside it.
package spill

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spillway-dev/spillway/guard/harness"
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

// Write stores f. Path elements from the transcript are made safe: nothing
// escapes the store, whatever a tool name or call id says.
func (s Dir) Write(f harness.SpillFile) (string, error) {
	dir := filepath.Join(s.Root, safeElem(s.Session), safeElem(s.Policy))
	var parts []string
	for _, e := range strings.Split(f.File, "/") {
		if e = safeElem(e); e != "" {
			parts = append(parts, e)
		}
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("spill file %q has no name", f.File)
	}
	full := filepath.Join(append([]string{dir}, parts...)...)
	if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
		return "", err
	}
	if old, err := os.ReadFile(full); err == nil && bytes.Equal(old, []byte(f.Content)) {
		return full, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(full), ".spill-*")
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

// safeElem keeps a path element's letters, digits, '.', '-' and '_' and
// replaces the rest; "." and ".." become empty.
func safeElem(e string) string {
	var b strings.Builder
	for _, r := range e {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := strings.Trim(b.String(), ".")
	if len(out) > 120 {
		out = out[:120]
	}
	return out
}

package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// outFiles are the files a report writes into a folder (--out): each is
// written beside its name, and at the end all of them are put in place,
// or none, so that the folder never holds some tables of this run beside
// others of an earlier one; what was begun is removed on every way out
// (Abort).
type outFiles struct {
	mu    sync.Mutex
	dir   string
	names []string
	files []*os.File
	over  bool // put in place or aborted: nothing more to do
}

// create begins the file to be put at name.
func (o *outFiles) create(name string) (*os.File, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.over {
		return nil, errors.New("report aborted")
	}
	f, err := os.CreateTemp(o.dir, "."+name+"-*")
	if err != nil {
		return nil, err
	}
	o.names, o.files = append(o.names, name), append(o.files, f)
	return f, nil
}

// Abort removes the files begun, unless they were put in place already.
// It may be called at any time, from any goroutine: a commit under way
// ends first.
func (o *outFiles) Abort() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.remove()
	o.over = true
}

func (o *outFiles) remove() {
	if o.over {
		return
	}
	for _, f := range o.files {
		f.Close()
		os.Remove(f.Name())
	}
	o.files = nil
}

// renameFile is os.Rename; tests make it fail.
var renameFile = os.Rename

// commit closes the files and puts each in place of its name: all of them,
// or, when one cannot be, none, the files there before put back.
func (o *outFiles) commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.over {
		return errors.New("report aborted")
	}
	defer func() { o.remove(); o.over = true }()
	for _, f := range o.files {
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", o.nameOf(f), err)
		}
	}
	for _, name := range o.names {
		if info, err := os.Lstat(filepath.Join(o.dir, name)); err == nil && info.IsDir() {
			return fmt.Errorf("write %s: %s is a folder: no table written", name, filepath.Join(o.dir, name))
		}
	}
	// Each file there before is moved aside first, to be put back if a
	// later one fails, and removed once all are in place.
	old := make([]string, len(o.names))
	placed := 0
	undo := func() {
		for i := placed - 1; i >= 0; i-- {
			target := filepath.Join(o.dir, o.names[i])
			if old[i] != "" {
				os.Rename(old[i], target)
			} else {
				os.Remove(target)
			}
		}
		if placed < len(old) && old[placed] != "" {
			os.Rename(old[placed], filepath.Join(o.dir, o.names[placed]))
		}
	}
	for i, name := range o.names {
		target := filepath.Join(o.dir, name)
		if _, err := os.Lstat(target); err == nil {
			aside, err := os.CreateTemp(o.dir, "."+name+"-old-*")
			if err != nil {
				undo()
				return fmt.Errorf("write %s: %w; no table written", name, err)
			}
			aside.Close()
			if err := renameFile(target, aside.Name()); err != nil {
				os.Remove(aside.Name())
				undo()
				return fmt.Errorf("write %s: %w; no table written", name, err)
			}
			old[i] = aside.Name()
		}
		if err := renameFile(o.files[i].Name(), target); err != nil {
			undo()
			return fmt.Errorf("write %s: %w; no table written", name, err)
		}
		placed++
	}
	for _, p := range old {
		if p != "" {
			os.Remove(p)
		}
	}
	o.files = nil // in place: nothing to remove
	return nil
}

func (o *outFiles) nameOf(f *os.File) string {
	for i, g := range o.files {
		if g == f {
			return o.names[i]
		}
	}
	return f.Name()
}

// Abort removes what w began writing into a folder, if it writes one, and
// makes it write nothing more: for an interrupted report.
func Abort(w Writer) {
	if a, ok := w.(interface{ Abort() }); ok {
		a.Abort()
	}
}

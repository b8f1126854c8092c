package spill

import (
	"fmt"
	"sync"

	"github.com/spillway-dev/spillway/guard/harness"
)

// Planned is a store that writes nothing until asked: Write records the
// file a replay spills and answers with the path Dir would give it, and
// WriteOne or WriteAll writes it there. The inspector replays a session at
// every key, and a spill file is needed only when it is opened or the
// policy is taken elsewhere; writing every one at every replay wrote a
// copy of a session's large results each time (1.5 GB in a 25-second look
// at a 1 GB log). What it records are the replay's own strings, so it
// holds no more than the replay does.
type Planned struct {
	Dir Dir

	mu    sync.Mutex
	files map[string]harness.SpillFile // by path
	order []string
	// later makes the content of the files planned without it (WriteLater).
	later map[string]func() (string, error)
}

// Write records f and returns where it will be written.
func (p *Planned) Write(f harness.SpillFile) (string, error) {
	path, err := p.Dir.Path(f)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.files == nil {
		p.files = map[string]harness.SpillFile{}
	}
	if _, seen := p.files[path]; !seen {
		p.order = append(p.order, path)
	}
	p.files[path] = f
	delete(p.later, path)
	return path, nil
}

// WriteLater records f, whose content is made by content when the file is
// written: a replay whose texts are read again when needed plans its
// files without holding them. A content that fails (the session's file
// changed since it was read) writes no file, and says why.
func (p *Planned) WriteLater(f harness.SpillFile, content func() (string, error)) (string, error) {
	f.Content = ""
	path, err := p.Write(f)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.later == nil {
		p.later = map[string]func() (string, error){}
	}
	p.later[path] = content
	return path, nil
}

// Len is the number of files planned.
func (p *Planned) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.order)
}

// WriteOne writes the planned file at path, as Dir.Write writes it (a
// file there already with the same content is left as it is).
func (p *Planned) WriteOne(path string) error {
	p.mu.Lock()
	f, ok := p.files[path]
	content := p.later[path]
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("no spill file is planned at %s", path)
	}
	if content != nil {
		var err error
		if f.Content, err = content(); err != nil {
			return err
		}
	}
	_, err := p.Dir.Write(f)
	return err
}

// WriteAll writes every planned file, in the order planned, and returns
// how many were written and the first error; it goes on past errors.
func (p *Planned) WriteAll() (int, error) {
	p.mu.Lock()
	paths := append([]string(nil), p.order...)
	p.mu.Unlock()
	var first error
	n := 0
	for _, path := range paths {
		if err := p.WriteOne(path); err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		n++
	}
	return n, first
}

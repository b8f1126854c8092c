package app

import (
	"container/list"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/internal/safefile"
)

// FilePool opens the files of the sessions whose texts are read on demand
// (FileTexts) as their texts are asked for, holding at most a few open at
// once and closing the least recently used first: a list of thousands of
// sessions held without their texts would otherwise hold as many files
// open. Each use looks again at the file: one that is no longer the file
// read, or was written since, gives ErrFileChanged rather than a text of
// another file, even one of the texts it keeps. It keeps the texts read
// last, up to a bound, for the
// replays that ask for one text several times (shaping it, then looking
// for hazards in it; a sweep's every ceiling). It is safe for concurrent
// use.
type FilePool struct {
	maxOpen int
	mu      sync.Mutex
	open    map[string]*pooledFile
	lru     list.List // of *pooledFile, the most recently used first
	texts   textCache
	ids     atomic.Uint64
	read    atomic.Int64
}

type pooledFile struct {
	path string
	f    *os.File
	info os.FileInfo
	refs int
	at   *list.Element
}

// NewFilePool holds up to maxOpen files open and keeps up to keepBytes of
// the texts read last.
func NewFilePool(maxOpen int, keepBytes int64) *FilePool {
	p := &FilePool{maxOpen: max(1, maxOpen), open: map[string]*pooledFile{}}
	p.texts.limit = keepBytes
	return p
}

// ReadBytes is how many bytes of lines were read again for their texts.
func (p *FilePool) ReadBytes() int64 { return p.read.Load() }

// current looks at t's path: an error when it no longer names the file
// read, or that file was written since.
func (t *FileTexts) current() (os.FileInfo, error) {
	st, err := os.Stat(t.path)
	if err != nil {
		return nil, err
	}
	if !t.same(st) {
		return nil, fmt.Errorf("not the file read (%d bytes, modified %s)", st.Size(), st.ModTime().Format("2006-01-02 15:04:05.000"))
	}
	return st, nil
}

// acquire takes the file t read, whose path names it as st says, open
// already or opened now; done lets it go.
func (p *FilePool) acquire(t *FileTexts, st os.FileInfo) (*os.File, func(), error) {
	p.mu.Lock()
	if e := p.open[t.path]; e != nil && os.SameFile(e.info, st) {
		e.refs++
		p.lru.MoveToFront(e.at)
		p.mu.Unlock()
		return e.f, func() { p.release(e) }, nil
	}
	p.mu.Unlock()
	f, fst, err := safefile.OpenRegular(t.path, nil)
	if err != nil {
		return nil, nil, err
	}
	if !t.same(fst) {
		f.Close()
		return nil, nil, fmt.Errorf("the file was replaced as it was opened again")
	}
	e := &pooledFile{path: t.path, f: f, info: st, refs: 1}
	p.mu.Lock()
	if old := p.open[t.path]; old != nil {
		p.unlink(old)
	}
	p.open[t.path] = e
	e.at = p.lru.PushFront(e)
	p.evict()
	p.mu.Unlock()
	return f, func() { p.release(e) }, nil
}

// same says whether st is the file t read, unwritten since.
func (t *FileTexts) same(st os.FileInfo) bool {
	return os.SameFile(st, t.info) && st.Size() == t.info.Size() && st.ModTime().Equal(t.info.ModTime())
}

func (p *FilePool) release(e *pooledFile) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e.refs--
	if e.at == nil && e.refs == 0 {
		e.f.Close() // let go of the pool while in use
		return
	}
	p.evict()
}

// unlink takes e out of the pool, closing it unless a read uses it; p.mu
// is held.
func (p *FilePool) unlink(e *pooledFile) {
	if e.at == nil {
		return
	}
	p.lru.Remove(e.at)
	e.at = nil
	if p.open[e.path] == e {
		delete(p.open, e.path)
	}
	if e.refs == 0 {
		e.f.Close()
	}
}

// evict closes the least recently used files no read uses, down to
// maxOpen; p.mu is held.
func (p *FilePool) evict() {
	for el := p.lru.Back(); el != nil && p.lru.Len() > p.maxOpen; {
		prev := el.Prev()
		if e := el.Value.(*pooledFile); e.refs == 0 {
			p.unlink(e)
		}
		el = prev
	}
}

// Close closes every file the pool holds open; a read under way closes
// its own when done.
func (p *FilePool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.lru.Len() > 0 {
		p.unlink(p.lru.Front().Value.(*pooledFile))
	}
}

// textKey names a text read again: the read it belongs to, its line and
// call.
type textKey struct {
	read uint64
	line int
	call string
}

// textCache keeps the texts read last, the least recently used let go
// first, up to limit bytes.
type textCache struct {
	mu    sync.Mutex
	limit int64
	bytes int64
	byKey map[textKey]*list.Element
	lru   list.List // of *cachedText
}

type cachedText struct {
	key  textKey
	text string
}

func (c *textCache) get(k textKey) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return "", false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cachedText).text, true
}

func (c *textCache) put(k textKey, text string) {
	n := int64(len(text))
	if n > c.limit/4 {
		return // it would push out most of the others
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey = map[textKey]*list.Element{}
	}
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.lru.PushFront(&cachedText{k, text})
	c.bytes += n
	for c.bytes > c.limit {
		last := c.lru.Back()
		t := last.Value.(*cachedText)
		c.lru.Remove(last)
		delete(c.byKey, t.key)
		c.bytes -= int64(len(t.text))
	}
}

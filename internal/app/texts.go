package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// FileTexts reads the tool results' texts of a session from its file when
// they are needed, so that a session far larger than memory is not held
// whole: the session is read without them (transcript.Options
// DropResultTexts) and each is read again from its line. It is safe for
// concurrent use.
//
// The file must not change meanwhile. A log being written is only
// appended to, which leaves the lines read alone; a text whose line no
// longer holds it as measured (the file was rewritten or cut) is an
// error, ErrFileChanged.
type FileTexts struct {
	f      *os.File // nil when the file is opened through pool
	pool   *FilePool
	id     uint64 // tells this read's texts apart in pool's cache
	info   os.FileInfo
	path   string
	format transcript.Format
	starts []int64 // starts[k] is where line k+1 begins; the last, where the read ended
	size   int64
	mod    time.Time
}

// ErrFileChanged says a session's file no longer holds what was read from it.
var ErrFileChanged = errors.New("the session file changed since it was read")

// onDemand says which formats' results are read again from their line
// alone: a Claude Code result's text is made from its own line only, and
// so is a Codex output's (its function_call_output item, the tool it
// answers named by the call id the held session keeps). Antigravity's
// steps and the generic reader's records are not checked to be.
func onDemand(f transcript.Format) bool {
	return f == transcript.FormatClaude || f == transcript.FormatCodex
}

// LoadTexts reads the session at path without its results' texts and
// returns it with what reads them again. texts is nil, and the session
// read in full, when its format is not one whose texts can be read again
// from their lines. progress is as for Load.
func (o Options) LoadTexts(path string, progress func(done, total int64)) (*transcript.Session, *FileTexts, error) {
	s, texts, err := o.readTexts(path, progress, nil)
	if err != nil {
		return nil, nil, err
	}
	reconcile([]*transcript.Session{s})
	return s, texts, nil
}

// readTexts is LoadTexts without reconciling, for the pipeline, which
// reconciles sessions read together. With pool set, the file is let go
// once read and opened again through pool when a text is asked for, and
// the session is read in full, each result's text marked as one to drop
// (its DroppedBytes set): preparing and processing it then read no text
// again, and dropTexts drops them once it is processed (Session.DropTexts).
func (o Options) readTexts(path string, progress func(done, total int64), pool *FilePool) (*transcript.Session, *FileTexts, error) {
	f, st, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return nil, nil, err
	}
	ix := &lineStarts{r: f, starts: []int64{0}, size: st.Size()}
	var r io.Reader = ix
	if progress != nil {
		r = &progressReader{r: r, total: st.Size(), report: progress}
	}
	read := o.Read
	read.DropResultTexts = pool == nil
	s, err := transcript.Read(r, path, read)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !onDemand(s.Format) {
		f.Close()
		if pool != nil {
			return s, nil, nil // read in full already
		}
		s, err = transcript.ReadFile(path, o.Read)
		return s, nil, err
	}
	if pool != nil {
		for _, r := range s.Results() {
			r.DroppedBytes = len(r.Text)
		}
	}
	t := &FileTexts{f: f, info: st, path: path, format: s.Format, starts: slices.Clip(ix.starts), size: ix.off, mod: st.ModTime()}
	if pool != nil {
		f.Close()
		t.f, t.pool, t.id = nil, pool, pool.ids.Add(1)
	}
	return s, t, nil
}

// dropTexts drops the texts readTexts kept for preparing s: s is then as
// read without them (transcript.Options.DropResultTexts). A text dropped
// already is not written again, so that dropping twice is no write to a
// session others read.
func dropTexts(s *transcript.Session) {
	for _, r := range s.Results() {
		if r.DroppedBytes > 0 && r.Text != "" {
			r.Text = ""
		}
	}
}

// Close lets the file go; one opened through a pool stays the pool's.
func (t *FileTexts) Close() error {
	if t.f == nil {
		return nil
	}
	return t.f.Close()
}

// Text is r's text as the full read gives it: its line read again and
// decoded alone. A result that was measured empty has no text to read.
func (t *FileTexts) Text(r *transcript.ToolResult) (string, error) {
	if r.DroppedBytes == 0 || r.Text != "" {
		return r.Text, nil // measured empty, or not dropped yet (readTexts)
	}
	if r.Line < 1 || r.Line >= len(t.starts) {
		return "", fmt.Errorf("%s: result at line %d: no such line was read", t.path, r.Line)
	}
	key := textKey{t.id, r.Line, r.CallID}
	f, done := t.f, func() {}
	if t.pool != nil {
		st, err := t.current()
		if err != nil {
			return "", t.changed(r, err.Error())
		}
		if text, ok := t.pool.texts.get(key); ok {
			return text, nil
		}
		if f, done, err = t.pool.acquire(t, st); err != nil {
			return "", t.changed(r, err.Error())
		}
	}
	defer done()
	from, to := t.starts[r.Line-1], t.starts[r.Line]
	bp := lineBufs.Get().(*[]byte)
	defer lineBufs.Put(bp)
	if int64(cap(*bp)) < to-from {
		*bp = make([]byte, to-from)
	}
	line := (*bp)[:to-from]
	if n, err := f.ReadAt(line, from); n < len(line) {
		return "", t.changed(r, fmt.Sprintf("reading line %d: %v", r.Line, err))
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	if text, ok := transcript.ResultText(line, r.Line, r); ok {
		t.keep(key, to-from, text)
		return text, nil
	}
	lr, done := lineReader(t.format)
	defer done()
	s, err := lr.Read(t.path, line)
	if err != nil {
		return "", t.changed(r, err.Error())
	}
	for _, got := range s.Results() {
		if got.CallID == r.CallID && len(got.Text) == r.DroppedBytes {
			t.keep(key, to-from, got.Text)
			return got.Text, nil
		}
	}
	return "", t.changed(r, fmt.Sprintf("line %d holds no result %q of %d bytes", r.Line, r.CallID, r.DroppedBytes))
}

// keep notes a text read again, from a line of n bytes, in the pool's
// cache where the file is opened through one.
func (t *FileTexts) keep(key textKey, n int64, text string) {
	if t.pool != nil {
		t.pool.read.Add(n)
		t.pool.texts.put(key, text)
	}
}

// Current is the error reading any text again would give now because the
// file changed (ErrFileChanged), nil while it would not: a replay that
// reads no text (replay.Prepared reuses what it rendered) asks it first.
func (t *FileTexts) Current() error {
	if t.pool == nil {
		return nil // read from the file held open, which appends leave alone
	}
	if _, err := t.current(); err != nil {
		return t.changed(nil, err.Error())
	}
	return nil
}

// lineBufs hold the lines read again: the texts decoded from them are
// copies, so a line's bytes are not needed past its decoding.
var lineBufs = sync.Pool{New: func() any { return new([]byte) }}

// lineReaders are the LineReaders of the formats read again on demand.
var lineReaders = map[transcript.Format]*sync.Pool{}

func init() {
	for _, f := range []transcript.Format{transcript.FormatClaude, transcript.FormatCodex} {
		lineReaders[f] = &sync.Pool{New: func() any { return transcript.NewLineReader(transcript.Options{Format: f}) }}
	}
}

// lineReader is a LineReader of lines of format f, and what lets it go.
func lineReader(f transcript.Format) (*transcript.LineReader, func()) {
	pool := lineReaders[f]
	if pool == nil {
		return transcript.NewLineReader(transcript.Options{Format: f}), func() {}
	}
	lr := pool.Get().(*transcript.LineReader)
	return lr, func() { pool.Put(lr) }
}

// changed wraps what went wrong reading a text again as ErrFileChanged,
// saying how the file differs where that shows.
func (t *FileTexts) changed(r *transcript.ToolResult, what string) error {
	how := ""
	if st, err := os.Stat(t.path); err != nil {
		how = fmt.Sprintf(" (%v)", err)
	} else if st.Size() < t.size {
		how = fmt.Sprintf(" (cut from %d to %d bytes)", t.size, st.Size())
	} else if !st.ModTime().Equal(t.mod) {
		how = " (written since)"
	}
	return fmt.Errorf("%w%s: %s: %s", ErrFileChanged, how, t.path, what)
}

// lineStarts passes a file through, noting where each line begins.
type lineStarts struct {
	r      io.Reader
	off    int64
	starts []int64
	size   int64
}

// Size is the file's size, for the reader to size its tables once.
func (l *lineStarts) Size() int64 { return l.size }

func (l *lineStarts) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	for i, chunk := 0, b[:n]; ; {
		k := bytes.IndexByte(chunk[i:], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		l.starts = append(l.starts, l.off+int64(i))
	}
	l.off += int64(n)
	if err == io.EOF && (len(l.starts) == 0 || l.starts[len(l.starts)-1] != l.off) {
		l.starts = append(l.starts, l.off) // the last line, with no newline
	}
	return n, err
}

package lines

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spillway-dev/spillway/internal/safefile"
)

// tailer reads one open file from a kept offset.
type tailer struct {
	path      string
	f         *os.File
	info      os.FileInfo // of f when opened, to recognise it by identity
	off       int64       // next byte to read
	done      int64       // offset just after the last complete line
	fp        []byte      // up to fingerprintLen bytes just before off
	skipFirst bool        // the first line began before the start offset
	split     Splitter
	onLine    func([]byte) error
	readErr   string // last error reported, to report each failure once
	openErr   string
	goneErr   string
	goneLooks int // poll ticks in a row that found the path gone
	// sum hashes the bytes read, from base to off, and mod is the file's
	// modification time when they were: a file rewritten to the same size
	// with the same last bytes shows by a new time and another sum.
	sum  maphash.Hash
	base int64
	mod  time.Time
}

// open opens path to be read from start; restarted tells that start was
// beyond the end of the file, so reading starts at 0 instead.
func (f *follower) open(path string, start int64) (t *tailer, restarted bool, err error) {
	// Without blocking: a FIFO put at the path since it was looked at is
	// refused, not waited on.
	fh, info, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return nil, false, err
	}
	t = &tailer{path: path, f: fh, info: info}
	t.onLine = func(line []byte) error { return f.addLine(t, line) }
	t.split.Limit = Limit{Max: f.opt.MaxLine, Long: func(n int64) error { return f.skipLine(t, n) }}
	switch size := info.Size(); {
	case start < 0:
		start = size
	case start > size:
		start, restarted = 0, true
	}
	if start > 0 {
		k := min(start, fingerprintLen)
		t.fp = make([]byte, k, fingerprintLen)
		if _, err := fh.ReadAt(t.fp, start-k); err != nil {
			// Shrunk since the Stat.
			start, restarted, t.fp = 0, true, t.fp[:0]
		} else {
			t.skipFirst = t.fp[k-1] != '\n'
		}
	}
	t.off, t.done = start, start
	t.restart(start, info.ModTime())
	return t, restarted, nil
}

// restart begins the sum of what is read at base.
func (t *tailer) restart(base int64, mod time.Time) {
	t.sum.SetSeed(sumSeed)
	t.base, t.mod = base, mod
}

// sumSeed seeds every tailer's sum alike: sums are only compared within a
// run.
var sumSeed = maphash.MakeSeed()

// rewritten tells whether t's file, which has no bytes past what was read,
// was written since all the same: its time changed and what it holds from
// base to the offset read is no longer what was read there. The file is
// read again only when its time changed.
func (t *tailer) rewritten(buf []byte) bool {
	st, err := t.f.Stat()
	if err != nil || st.Size() != t.off || st.ModTime().Equal(t.mod) {
		return false
	}
	var now maphash.Hash
	now.SetSeed(sumSeed)
	for off := t.base; off < t.off; {
		n, err := t.f.ReadAt(buf[:min(int64(len(buf)), t.off-off)], off)
		now.Write(buf[:n])
		off += int64(n)
		if err != nil && off < t.off {
			return true // shorter than it was: cut since the Stat
		}
	}
	if now.Sum64() != t.sum.Sum64() {
		return true
	}
	t.mod = st.ModTime() // written with the same bytes: nothing changed
	return false
}

// poll reads the current file to its end, then checks whether its path now
// names another file; if so it drains the old file and moves to the new one.
// full is set on poll ticks.
func (f *follower) poll(full bool) error {
	t := f.cur
	if err := f.read(t); err != nil {
		return err
	}
	st, err := os.Stat(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		// Gone (deleted or renamed away, maybe with writers still
		// appending to it): keep reading the open file until the path
		// names a new one. Said once it is still gone at a second tick,
		// not in the moment a rotation leaves the name free.
		if full {
			t.goneLooks++
		}
		if t.goneLooks < 2 {
			return nil
		}
		return f.report(&t.goneErr, t.path, fmt.Errorf("%s was deleted or moved away: following what it held until a file comes back there", t.path))
	}
	t.goneErr, t.goneLooks = "", 0
	if err != nil || os.SameFile(st, t.info) || !st.Mode().IsRegular() {
		return nil
	}
	// The writer may have appended to the old file after the rename.
	if err := f.read(t); err != nil {
		return err
	}
	if err := f.flush(); err != nil {
		return err
	}
	nt, _, err := f.open(t.path, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // renamed again in between; the next look decides
		}
		return f.report(&t.openErr, t.path, err)
	}
	t.openErr = ""
	if os.SameFile(nt.info, t.info) {
		nt.f.Close() // raced back to the old file
		return nil
	}
	f.setCur(nt)
	if err := f.send(Event{Kind: Rotated, Path: nt.path}); err != nil {
		return err
	}
	return f.read(nt)
}

// read delivers what was appended to t since the last read, up to the
// current end of the file.
func (f *follower) read(t *tailer) error {
	if f.buf == nil {
		f.buf = make([]byte, fingerprintLen+readChunk)
	}
	for {
		k := len(t.fp)
		n, err := t.f.ReadAt(f.buf, t.off-int64(k))
		if err != nil && err != io.EOF {
			return f.report(&t.readErr, t.path, fmt.Errorf("read %s: %w", t.path, err))
		}
		t.readErr = ""
		if n < k || !bytes.Equal(f.buf[:k], t.fp) || n == k && t.rewritten(f.buf) {
			if err := f.emit(Event{Kind: Truncated, Path: t.path}); err != nil {
				return err
			}
			t.off, t.done, t.fp, t.skipFirst = 0, 0, t.fp[:0], false
			t.split.Reset()
			t.restart(0, time.Time{})
			continue
		}
		if n == k {
			return nil
		}
		if err := t.split.Split(f.buf[k:n], t.onLine); err != nil {
			return err
		}
		t.sum.Write(f.buf[k:n])
		t.off += int64(n - k)
		// The buffer holds the file from t.off-k on, so its tail is
		// exactly the bytes before the new offset.
		m := min(n, fingerprintLen)
		t.fp = append(t.fp[:0], f.buf[n-m:n]...)
		if n < len(f.buf) {
			// At the end: the time of what was read, to tell a rewrite by.
			if st, err := t.f.Stat(); err == nil && st.Size() == t.off {
				t.mod = st.ModTime()
			}
			return nil
		}
	}
}

// report delivers a non-fatal error unless it is the same as *last, the
// previous failure of the same operation.
func (f *follower) report(last *string, path string, err error) error {
	if *last == err.Error() {
		return nil
	}
	*last = err.Error()
	return f.emit(Event{Kind: Error, Path: path, Err: err})
}

func (f *follower) addLine(t *tailer, line []byte) error {
	t.done += int64(len(line)) + 1
	if t.skipFirst {
		t.skipFirst = false
		return nil
	}
	if len(f.batch) > 0 && f.batchPath != t.path {
		if err := f.flush(); err != nil {
			return err
		}
	}
	f.batch = append(f.batch, f.copyLine(line))
	f.batchBytes += len(line)
	f.batchPath, f.batchOff = t.path, t.done
	if len(f.batch) >= f.opt.BatchLines || f.batchBytes >= maxBatchBytes {
		return f.flush()
	}
	return nil
}

// skipLine reports a line over the limit, after the lines before it.
func (f *follower) skipLine(t *tailer, n int64) error {
	t.done += n + 1
	if t.skipFirst {
		t.skipFirst = false
		return nil
	}
	return f.emit(Event{Kind: TooLong, Path: t.path, Size: n, Offset: t.done})
}

// copyLine copies line out of the read buffer; small lines share arenas to
// spare the allocator.
func (f *follower) copyLine(line []byte) []byte {
	n := len(line)
	if n > arenaSize/4 {
		return bytes.Clone(line)
	}
	if cap(f.arena)-len(f.arena) < n {
		f.arena = make([]byte, 0, arenaSize)
	}
	i := len(f.arena)
	f.arena = append(f.arena, line...)
	return f.arena[i : i+n : i+n]
}

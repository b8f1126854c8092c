package index

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spillway-dev/spillway/transcript"
	"github.com/spillway-dev/spillway/transcript/lines"
)

// A Claude Code or Codex session written to in the last liveWindow is
// read through a decoder the index keeps (up to liveFiles of them, each of
// a file of at most liveBytes), so that when it has grown by the next Scan
// of the same Index only what was appended is read: the reader's state is
// the decoder's (for Codex, the running token totals each count is a
// difference of, and the request still open), so the session is what
// reading the whole file gives. Ending the read, which closes a Codex
// log's last request, is done on a copy (transcript.Decoder.Finished).
// Only a file that ends with a complete line is continued, from its end.
// The cache file keeps no decoder: a new process reads a grown file whole.
const (
	liveFiles = 32
	liveBytes = 64 << 20
)

// liveWindow is a variable so that tests can read files just written as
// older ones are read (export_test.go).
var liveWindow = 15 * time.Minute

// liveFile is a decoder fed a file up to offset, the end of its last line.
type liveFile struct {
	dec     *transcript.Decoder
	offset  int64
	key     fileKey
	modTime time.Time
}

// continued is told of every file continued from an offset; tests watch it.
var continued = func(path string, from int64) {}

// decode reads r whole. A Claude Code or Codex log that may still be
// written is read through a decoder returned to keep; any other through
// transcript.Read, its session's arrays from arena. Both read every line
// alike: Read is Feed for each line and Finish, and Finished is what
// Finish gives, leaving the decoder able to read on.
func (ix *Index) decode(r *sizedReader, path string, k fileKey, arena *transcript.Arena) (*transcript.Session, *transcript.Decoder, error) {
	if !liveCandidate(k) {
		opt := ix.opt.Read
		opt.Arena = arena
		s, err := transcript.Read(r, path, opt)
		return s, nil, err
	}
	opt := ix.opt.Read
	opt.SizeHint = r.Size() // sizes the tables as Read does
	dec := transcript.NewDecoder(path, opt)
	if err := feed(dec, r, path, ix.opt.Read); err != nil {
		return nil, nil, err
	}
	if s, ok := dec.Finished(); ok {
		return s, dec, nil
	}
	s, err := dec.Finish()
	return s, nil, err
}

// feed gives dec every line of r, as transcript.Read does.
func feed(dec *transcript.Decoder, r io.Reader, path string, opt transcript.Options) error {
	lim := lines.Limit{Max: opt.MaxLineBytes, Long: dec.Skip}
	err := lines.ReadAll(r, lim, func(line []byte, _ bool) error { return dec.Feed(line) })
	var nt *transcript.NotTranscriptError
	if err != nil && !errors.As(err, &nt) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return err
}

// liveCandidate: a file changed recently, not too large, that ends with a
// complete line (so that the next read starts on a line).
func liveCandidate(k fileKey) bool {
	return k.Size > 0 && k.Size <= liveBytes && time.Since(time.Unix(0, k.ModTime)) < liveWindow && k.endsLine
}

func (ix *Index) keepLive(path string, k fileKey, dec *transcript.Decoder) {
	ix.liveMu.Lock()
	defer ix.liveMu.Unlock()
	if ix.live == nil {
		ix.live = map[string]*liveFile{}
	}
	ix.live[path] = &liveFile{dec: dec, offset: k.Size, key: k, modTime: time.Unix(0, k.ModTime)}
	for len(ix.live) > liveFiles { // the least recently written goes
		oldest := ""
		for p, lf := range ix.live {
			if oldest == "" || lf.modTime.Before(ix.live[oldest].modTime) {
				oldest = p
			}
		}
		delete(ix.live, oldest)
	}
}

func (ix *Index) liveFile(path string) *liveFile {
	ix.liveMu.Lock()
	defer ix.liveMu.Unlock()
	return ix.live[path]
}

func (ix *Index) dropLive(path string) {
	ix.liveMu.Lock()
	delete(ix.live, path)
	ix.liveMu.Unlock()
}

// continueLive reads what was appended to the file at path since its
// decoder last read it and returns the session and the bytes read; a nil
// session when it has no decoder or the file is not the one it read,
// grown (then its decoder is dropped and the file read whole). The bytes
// are counted from the file's start: all of it is accounted for.
func (ix *Index) continueLive(f *os.File, path string, k fileKey, head []byte) (*transcript.Session, int64, error) {
	ix.liveMu.Lock()
	lf := ix.live[path]
	ix.liveMu.Unlock()
	if lf == nil {
		return nil, 0, nil
	}
	same := k.Inode == lf.key.Inode && k.Size >= lf.offset && len(head) >= lf.key.HeadLen &&
		fingerprint(head[:lf.key.HeadLen]) == lf.key.Head && k.endsLine
	if !same {
		ix.dropLive(path)
		return nil, 0, nil
	}
	from := lf.offset
	r := &sizedReader{r: io.NewSectionReader(f, from, k.Size-from), size: k.Size - from}
	if k.Size > from {
		continued(path, from)
		if err := feed(lf.dec, r, path, ix.opt.Read); err != nil || r.n != k.Size-from {
			// Read whole, which gives the error as reading does, or the
			// change as a change.
			ix.dropLive(path)
			return nil, 0, err
		}
	}
	k.cwd = lf.key.cwd // read from the file's start, which has not changed
	ix.liveMu.Lock()   // keepLive compares the files' times
	lf.offset, lf.key, lf.modTime = k.Size, k, time.Unix(0, k.ModTime)
	ix.liveMu.Unlock()
	s, ok := lf.dec.Finished()
	if !ok {
		ix.dropLive(path)
		return nil, 0, nil
	}
	return s, k.Size, nil
}

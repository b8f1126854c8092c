package statusline

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// A status line is a new process each time Claude Code draws it, so what
// was read of a log is kept in a file (logState) and the next call reads
// on from there. The reader's own state (the lines of a response grouped
// by message id, the tool calls a result answers) cannot be kept in a
// file, so a read starts afresh at the first line of the last call read
// before: every call before it is settled (its lines all came before),
// and the last one is read again whole with whatever came after it. A
// Claude Code log is read this way; another log is read whole each time.
// TestFollowSameAsWhole pins that reading a log on from every line of it
// gives what one read of it gives.

// maxRead bounds what one status line reads of a log that has grown: a
// log larger than this (or that grew by more) is caught up over several
// calls, each showing how far it got, rather than by one call Claude Code
// may give up on. It is more than the longest line read (64 MiB).
var maxRead int64 = 256 << 20

// headBytes is how much of a log's start, and of what comes before the
// place a read resumes, is fingerprinted to tell that the log is the one
// read before.
const headBytes = 4096

// logState is what was read of one log, kept between calls.
type logState struct {
	Size    int64 `json:"size"`
	ModTime int64 `json:"mtime"` // Unix nanoseconds
	// Head fingerprints the log's first headBytes, Mark the headBytes
	// before Resume.
	Head uint64 `json:"head"`
	Mark uint64 `json:"mark"`
	// Resume is where the next read starts: the first line of the last
	// call read; 0 for a log that is read whole each time.
	Resume int64 `json:"resume"`
	// End is just past the last complete line read; Behind says the log
	// had more complete lines than one call reads (maxRead).
	End    int64 `json:"end"`
	Behind bool  `json:"behind,omitempty"`
	// Settled sums the calls before Resume, Total every call before End.
	Settled Tally `json:"settled"`
	Total   Tally `json:"total"`
	// Claude is set for a Claude Code log: the prompt cache's rules are
	// Anthropic's.
	Claude bool `json:"claude"`
}

// Tally sums a log's calls as spillway prices them, and keeps what the
// status line shows of its main chain's last call.
type Tally struct {
	Calls int `json:"calls"`
	// Recorded counts the calls whose usage the log recorded.
	Recorded int     `json:"recorded"`
	Cost     float64 `json:"cost"` // of the calls whose model has a price
	// Unpriced lists the models without a price, sorted.
	Unpriced []string `json:"unpriced,omitempty"`
	// Last is the main chain's last call with usage: the context and the
	// prompt cache the next call finds.
	Last *LastCall `json:"last,omitempty"`
	// TTL is the lifetime the main chain last wrote the cache with: "5m"
	// or "1h" ("" before any write).
	TTL string `json:"ttl,omitempty"`
}

// LastCall is the usage of the main chain's last call.
type LastCall struct {
	Time  time.Time `json:"time"`
	Model string    `json:"model"`
	Input int64     `json:"input"`
	// CacheWrite5m and CacheWrite1h are the cache writes of each lifetime.
	CacheWrite5m int64 `json:"cache_write_5m"`
	CacheWrite1h int64 `json:"cache_write_1h"`
	CacheRead    int64 `json:"cache_read"`
	Output       int64 `json:"output"`
}

// Prompt is the tokens the call's context held: every input kind.
func (c *LastCall) Prompt() int64 {
	return c.Input + c.CacheWrite5m + c.CacheWrite1h + c.CacheRead
}

// add counts calls into t. A copy of a response another file counts
// (transcript.Call.CountedIn) is not summed.
func (t *Tally) add(calls []transcript.Call, prices func() *pricing.Table) {
	for i := range calls {
		c := &calls[i]
		t.Calls++
		if c.CountedIn != "" {
			continue
		}
		if c.Usage != nil {
			t.Recorded++
			t.price(c.Model, *c.Usage, prices())
		}
		for _, x := range c.Extra {
			t.price(x.Model, x.Usage, prices())
		}
		if c.Usage == nil || c.Sidechain {
			continue
		}
		u := c.Usage
		t.Last = &LastCall{Time: c.Time, Model: c.Model, Input: u.Input, CacheWrite5m: u.CacheCreation - u.CacheCreation1h,
			CacheWrite1h: u.CacheCreation1h, CacheRead: u.CacheRead, Output: u.Output}
		// As Claude Code itself reckons it: a call that wrote 5-minute
		// entries leaves the cache to last 5 minutes, one that wrote only
		// 1-hour entries an hour, and one that only read it the lifetime
		// of the last write.
		switch {
		case t.Last.CacheWrite5m > 0:
			t.TTL = "5m"
		case t.Last.CacheWrite1h > 0:
			t.TTL = "1h"
		}
	}
}

func (t *Tally) price(model string, u transcript.Usage, prices *pricing.Table) {
	if usd, ok := prices.Cost(model, u); ok {
		t.Cost += usd
		return
	}
	if i, found := slices.BinarySearch(t.Unpriced, model); !found {
		t.Unpriced = slices.Insert(t.Unpriced, i, model)
	}
}

// clone is a copy of t that shares nothing it can change.
func (t Tally) clone() Tally {
	t.Unpriced = slices.Clone(t.Unpriced)
	if t.Last != nil {
		last := *t.Last
		t.Last = &last
	}
	return t
}

// plus sums a sub-agent's log into t: its cost, not its last call, which
// is its own context and cache.
func (t Tally) plus(o Tally) Tally {
	t = t.clone()
	t.Calls += o.Calls
	t.Recorded += o.Recorded
	t.Cost += o.Cost
	for _, m := range o.Unpriced {
		if i, found := slices.BinarySearch(t.Unpriced, m); !found {
			t.Unpriced = slices.Insert(t.Unpriced, i, m)
		}
	}
	return t
}

// followLog brings the state of the log at path up to date from prev (nil
// or of another file: read from the start), reading no more than maxRead
// of it. prices is called only when there is something to price.
func followLog(path string, prev *logState, prices func() *pricing.Table, read transcript.Options) (*logState, error) {
	f, info, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := info.Size()
	head, err := fingerprint(f, 0, min(size, headBytes))
	if err != nil {
		return nil, err
	}
	if prev != nil && prev.Size == size && prev.ModTime == info.ModTime().UnixNano() && prev.Head == head && !prev.Behind {
		return prev, nil // not written since
	}
	st := &logState{Size: size, ModTime: info.ModTime().UnixNano(), Head: head}
	from := int64(0)
	if prev != nil && prev.Resume > 0 && prev.Claude && prev.Head == head && size >= prev.End {
		if mark, err := fingerprint(f, prev.Resume-min(prev.Resume, headBytes), prev.Resume); err == nil && mark == prev.Mark {
			from, st.Claude = prev.Resume, true
			st.Settled = prev.Settled.clone()
		}
	}
	end, err := lastLineEnd(f, from, min(size, from+maxRead))
	if err != nil {
		return nil, err
	}
	st.End, st.Behind = end, end < size && from+maxRead < size
	if end <= from {
		// No line ends in what is left (one still being written, or a
		// file with no newline at all): nothing to read again until it
		// changes, where a log of 1 GB without one was searched whole on
		// every call.
		st.Resume, st.Total, st.Behind = from, st.Settled.clone(), false
		return st, st.mark(f)
	}
	opt := read
	opt.SizesOnly, opt.TotalsOnly = true, true
	if from > 0 {
		opt.Format = transcript.FormatClaude
	}
	s, err := transcript.Read(io.NewSectionReader(f, from, end-from), path, opt)
	if err != nil {
		return nil, err
	}
	st.Claude = s.Format == transcript.FormatClaude
	if !st.Claude {
		// Read whole each time (its first maxRead, saying so): only
		// Claude Code's reader is known to start afresh at a call's first
		// line and read what one read does.
		st.Total.add(s.Calls, prices)
		return st, nil
	}
	if len(s.Calls) == 0 {
		st.Resume, st.Total = end, st.Settled.clone()
		return st, st.mark(f)
	}
	last := len(s.Calls) - 1
	st.Settled.add(s.Calls[:last], prices)
	st.Total = st.Settled.clone()
	st.Total.add(s.Calls[last:], prices)
	at, err := lineStart(f, from, end, s.Calls[last].Line)
	if err != nil {
		return nil, err
	}
	st.Resume = at
	return st, st.mark(f)
}

// mark fingerprints what comes before Resume.
func (st *logState) mark(f *os.File) error {
	m, err := fingerprint(f, st.Resume-min(st.Resume, headBytes), st.Resume)
	st.Mark = m
	return err
}

// fingerprint hashes f's bytes in [from, to).
func fingerprint(f *os.File, from, to int64) (uint64, error) {
	h := fnv.New64a()
	if _, err := io.Copy(h, io.NewSectionReader(f, from, to-from)); err != nil {
		return 0, err
	}
	return h.Sum64(), nil
}

// lastLineEnd is the offset just past the last newline in f's [from, to),
// or from when there is none. A line longer than the window (at most one
// the reader skips) is passed at the first newline after it.
func lastLineEnd(f *os.File, from, to int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for hi := to; hi > from; {
		lo := max(from, hi-int64(len(buf)))
		n, err := f.ReadAt(buf[:hi-lo], lo)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := n - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				return lo + int64(i) + 1, nil
			}
		}
		hi = lo
	}
	if to-from < maxRead {
		return from, nil // the last line is still being written
	}
	// A window without a newline: past it to the next one.
	for at := to; ; {
		n, err := f.ReadAt(buf, at)
		for i := range n {
			if buf[i] == '\n' {
				return at + int64(i) + 1, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return from, nil
			}
			return 0, err
		}
		at += int64(n)
	}
}

// lineStart is the offset of line n (from 1) of f's lines from offset
// from.
func lineStart(f *os.File, from, end int64, n int) (int64, error) {
	if n <= 1 {
		return from, nil
	}
	buf := make([]byte, 256<<10)
	seen := 0
	for at := from; at < end; {
		k, err := f.ReadAt(buf[:min(int64(len(buf)), end-at)], at)
		for i := range k {
			if buf[i] == '\n' {
				if seen++; seen == n-1 {
					return at + int64(i) + 1, nil
				}
			}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if k == 0 {
			break
		}
		at += int64(k)
	}
	return 0, fmt.Errorf("line %d is past the %d lines read", n, seen+1)
}

package transcript

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript/lines"
)

// FollowOptions tune Follow.
type FollowOptions struct {
	Options
	// Poll is the polling fallback's interval (default 1s); PollOnly turns
	// file-system notifications off, for file systems that send none.
	Poll     time.Duration
	PollOnly bool
	// Every bounds how often updates are sent while lines keep arriving
	// (default 30ms): a burst becomes one update, not one per line. An
	// update also waits ten times what the last one took (a copy of the
	// session so far), which spaces them out only for very long sessions.
	Every time.Duration
}

// Update is a followed session as read so far.
type Update struct {
	// Session is a snapshot, safe to keep and read while following goes
	// on; nil until the format is known.
	Session *Session
	Path    string
	Offset  int64 // bytes of Path read so far
	Size    int64 // size of Path when last looked at
	// Restarted says why the session was read again from the start; empty
	// when it was not.
	Restarted Restart
	// Err is a problem: the file is not a transcript (following waits for
	// the next file or truncation), or the watch failed and fell back to
	// polling.
	Err error
}

// Follow reads path (a file, or a directory: its newest session, switching
// to newer ones as they appear) and keeps reading what is appended. It
// sends an update after each burst of lines; a receiver that falls behind
// gets the latest state, not every intermediate one. The channel closes
// when ctx is done.
func Follow(ctx context.Context, path string, opt FollowOptions) (<-chan Update, error) {
	events, err := lines.Follow(ctx, path, lines.Options{Poll: opt.Poll, PollOnly: opt.PollOnly, Match: IsSession,
		Ready: func(p string) bool { return holdsSession(p, opt.Options) }, MaxLine: opt.MaxLineBytes})
	if err != nil {
		return nil, err
	}
	every := opt.Every
	if every <= 0 {
		every = 30 * time.Millisecond
	}
	out := make(chan Update, 1)
	crash.Go(func() {
		defer close(out)
		// The first update goes out even if the first look finds no
		// line (an empty file, a folder without a session yet), so that
		// the receiver knows reading has caught up.
		f := follower{opt: opt.Options, path: path, dirty: true}
		var (
			timer   = time.NewTimer(every)
			armed   = true
			lastOut time.Time
			gap     = every
		)
		defer timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok {
					return
				}
				f.handle(ev)
				if !f.dirty {
					continue
				}
				if wait := gap - time.Since(lastOut); wait > 0 {
					if !armed {
						timer.Reset(wait)
						armed = true
					}
					continue
				}
			case <-timer.C:
				armed = false
			}
			if f.dirty {
				start := time.Now()
				replace(out, f.update())
				lastOut = time.Now()
				// An update copies the session read so far: for a log of
				// a hundred thousand calls that takes tens of
				// milliseconds, and at every 30ms it was a third of the
				// time of reading one (BenchmarkFollowCatchUp on a 1 GB
				// log: 4.1 s, 2.8-3.7 s spaced).
				// Spaced by its cost, copying stays a tenth of it.
				gap = max(every, updateSpacing*lastOut.Sub(start))
			}
		}
	})
	return out, nil
}

// readyProbe bounds how much of a new file is read to tell whether it
// holds a session; a record normally comes in its first few lines.
const readyProbe = 16 << 20

// holdsSession reports whether the file at path yields a session: a line
// among its first that is a record of a known format (or of opt.Format).
// Following a folder switches only to such a file, so an empty or junk
// .jsonl appearing beside a session does not take it over.
func holdsSession(path string, opt Options) bool {
	f, _, err := safefile.OpenRegular(path, nil)
	if err != nil {
		return false
	}
	defer f.Close()
	d := NewDecoder(path, Options{Format: opt.Format, SizesOnly: true, MaxLineBytes: opt.MaxLineBytes})
	found := errors.New("found")
	err = lines.ReadAll(io.LimitReader(f, readyProbe), lines.Limit{Max: opt.MaxLineBytes, Long: d.Skip},
		func(line []byte, complete bool) error {
			if !complete {
				return nil // still being written
			}
			if err := d.Feed(line); err != nil {
				return err
			}
			if d.Records() > 0 {
				return found
			}
			return nil
		})
	return errors.Is(err, found)
}

// replace puts u in the one-slot channel, taking back an update the
// receiver has not picked up yet; a restart or error it carried is kept.
func replace(out chan Update, u Update) {
	for {
		select {
		case out <- u:
			return
		default:
		}
		select {
		case old := <-out:
			if u.Restarted == "" {
				u.Restarted = old.Restarted
			}
			if u.Err == nil {
				u.Err = old.Err
			}
		default:
		}
	}
}

// follower turns line events into session updates.
// Restart is why a followed session was read again from the start.
type Restart string

// Restarts; the values read in a sentence ("the session file was
// truncated").
const (
	RestartTruncated Restart = "truncated"
	RestartRotated   Restart = "rotated"
	RestartSwitched  Restart = "switched" // a newer session file in a followed directory
)

type follower struct {
	opt       Options
	path      string
	dec       *Decoder
	offset    int64
	restarted Restart
	err       error
	dirty     bool
}

func (f *follower) handle(ev lines.Event) {
	switch ev.Kind {
	case lines.Lines:
		if f.dec == nil {
			f.reset(ev.Path, "")
		}
		if ev.Path != "" {
			f.path = ev.Path // the session moved, with its folder: same file
		}
		// Read again: a problem of the watch is over. A decoder that
		// failed says so again at each line.
		f.err = nil
		for _, line := range ev.Lines {
			if err := f.dec.Feed(line); err != nil {
				f.err = err
				break
			}
		}
		f.offset = ev.Offset
	case lines.TooLong:
		if f.dec == nil {
			f.reset(ev.Path, "")
		}
		if err := f.dec.Skip(ev.Size); err != nil {
			f.err = err
		}
		f.offset = ev.Offset
	case lines.Truncated:
		f.reset(ev.Path, RestartTruncated)
	case lines.Rotated:
		f.reset(ev.Path, RestartRotated)
	case lines.Switched:
		restarted := RestartSwitched
		if f.dec == nil {
			restarted = "" // the first file of a directory
		}
		f.reset(ev.Path, restarted)
		f.offset = ev.Offset
	case lines.Error:
		f.err = ev.Err
	}
	f.dirty = true
}

func (f *follower) reset(path string, why Restart) {
	f.path, f.restarted, f.err, f.offset = path, why, nil, 0
	f.dec = NewDecoder(path, f.opt)
}

// updateSpacing is how many times its own cost an update waits after the
// last.
const updateSpacing = 10

func (f *follower) update() Update {
	u := Update{Path: f.path, Offset: f.offset, Restarted: f.restarted, Err: f.err}
	if f.dec != nil {
		if u.Session = f.dec.Snapshot(); u.Session != nil {
			u.Session.Path = f.path
		}
	}
	if st, err := os.Stat(f.path); err == nil && st.Mode().IsRegular() {
		u.Size = st.Size()
	}
	if u.Size < u.Offset {
		u.Size = u.Offset
	}
	f.restarted, f.dirty = "", false
	return u
}

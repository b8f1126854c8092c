package lines

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// waitFor bounds every wait: generous, for loaded CI machines. Tests finish
// as soon as what they wait for arrives.
const waitFor = 15 * time.Second

// modes runs each Follow test with notifications and with polling only. The
// long poll in fsnotify mode makes the test fail if notifications alone do
// not deliver everything.
var modes = []struct {
	name string
	opt  Options
}{
	{"fsnotify", Options{Poll: time.Hour}},
	{"poll", Options{PollOnly: true, Poll: 20 * time.Millisecond}},
}

// recs flattens an event for comparison: "name: line" per line, or
// "name <Kind>".
func recs(ev Event) []string {
	base := filepath.Base(ev.Path)
	switch ev.Kind {
	case Lines:
		var out []string
		for _, l := range ev.Lines {
			out = append(out, base+": "+string(l))
		}
		return out
	case Error:
		return []string{fmt.Sprintf("%s <Error: %v>", base, ev.Err)}
	case TooLong:
		return []string{fmt.Sprintf("%s <TooLong: %d bytes>", base, ev.Size)}
	}
	return []string{fmt.Sprintf("%s <%v>", base, ev.Kind)}
}

// follow starts Follow and, at cleanup, cancels it and checks that the
// channel gets closed.
func follow(t testing.TB, path string, opt Options) <-chan Event {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Follow(ctx, path, opt)
	if err != nil {
		cancel()
		t.Fatalf("Follow: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		waitClosed(t, ch)
	})
	return ch
}

func waitClosed(t testing.TB, ch <-chan Event) {
	t.Helper()
	timeout := time.After(waitFor)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatal("channel not closed after cancel")
		}
	}
}

// expect reads events until as many records as wanted arrived, and compares.
func expect(t testing.TB, ch <-chan Event, want ...string) []Event {
	t.Helper()
	var got []string
	var evs []Event
	timeout := time.After(waitFor)
	for len(got) < len(want) {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed; got %q, want %q", got, want)
			}
			r := recs(ev)
			if len(r) == 0 {
				continue // a move told alone: no record, at any moment
			}
			evs = append(evs, ev)
			got = append(got, r...)
		case <-timeout:
			t.Fatalf("timed out; got %q, want %q", got, want)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("events mismatch (-want +got):\n%s", diff)
	}
	return evs
}

// quiet checks that no event with a record arrives for a little while.
func quiet(t testing.TB, ch <-chan Event, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev := <-ch:
			if r := recs(ev); len(r) > 0 {
				t.Fatalf("unexpected event %q", r)
			}
		case <-deadline:
			return
		}
	}
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func openAppend(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func write(t testing.TB, f *os.File, s string) {
	t.Helper()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// forModes runs fn once per mode, in parallel.
func forModes(t *testing.T, fn func(t *testing.T, opt Options)) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			fn(t, m.opt)
		})
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Lines: "Lines", Truncated: "Truncated", Rotated: "Rotated",
		Switched: "Switched", Error: "Error", 0: "Kind(0)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestFollowMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.jsonl")
	_, err := Follow(context.Background(), path, Options{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "follow "+path) {
		t.Fatalf("Follow of a missing file: got %v, want an error wrapping fs.ErrNotExist naming the path", err)
	}
}

func TestFollowPartialWrites(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		path := filepath.Join(t.TempDir(), "f")
		writeFile(t, path, "first\n")
		ch := follow(t, path, opt)
		expect(t, ch, "f: first")

		w := openAppend(t, path)
		// "é" is 0xc3 0xa9: split it, and split "\r\n".
		for _, piece := range []string{`{"t":"h` + "\xc3", "\xa9" + `llo"}` + "\r"} {
			write(t, w, piece)
			quiet(t, ch, 60*time.Millisecond)
		}
		write(t, w, "\n"+`{"t":"2"`)
		expect(t, ch, `f: {"t":"héllo"}`+"\r")
		quiet(t, ch, 60*time.Millisecond)
		write(t, w, "}\n")
		evs := expect(t, ch, `f: {"t":"2"}`)
		size := int64(len("first\n" + `{"t":"héllo"}` + "\r\n" + `{"t":"2"}` + "\n"))
		if off := evs[len(evs)-1].Offset; off != size {
			t.Fatalf("Offset = %d, want %d", off, size)
		}
	})
}

// TestFollowTooLong: a line over MaxLine, written in pieces, is reported
// by its length in its place, and the offsets count it.
func TestFollowTooLong(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		path := filepath.Join(t.TempDir(), "f")
		writeFile(t, path, "first\n")
		opt.MaxLine = 8
		ch := follow(t, path, opt)
		expect(t, ch, "f: first")
		w := openAppend(t, path)
		write(t, w, "123456")
		quiet(t, ch, 60*time.Millisecond)
		write(t, w, "789")
		quiet(t, ch, 60*time.Millisecond)
		write(t, w, strings.Repeat("x", 100)+"\nshort\n")
		evs := expect(t, ch, "f <TooLong: 109 bytes>", "f: short")
		if off, want := evs[len(evs)-1].Offset, int64(6+110+6); off != want {
			t.Fatalf("Offset = %d, want %d", off, want)
		}
	})
}

func TestFollowTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		initial string
		first   []string
		mutate  func(t testing.TB, path string)
		want    []string
	}{
		{
			name:    "to zero then shorter append",
			initial: "aaaaaaaaaa\nbbbbbbbbbb\n",
			first:   []string{"f: aaaaaaaaaa", "f: bbbbbbbbbb"},
			mutate: func(t testing.TB, path string) {
				if err := os.Truncate(path, 0); err != nil {
					t.Fatal(err)
				}
				appendFile(t, path, "c\n")
			},
			want: []string{"f <Truncated>", "f: c"},
		},
		{
			name:    "refill with a line of the same length",
			initial: "line-one\n",
			first:   []string{"f: line-one"},
			mutate:  func(t testing.TB, path string) { writeFile(t, path, "line-two\n") },
			want:    []string{"f <Truncated>", "f: line-two"},
		},
		{
			name:    "refill larger",
			initial: "a\n",
			first:   []string{"f: a"},
			mutate:  func(t testing.TB, path string) { writeFile(t, path, "bbbbbbbbbb\ncc\n") },
			want:    []string{"f <Truncated>", "f: bbbbbbbbbb", "f: cc"},
		},
		{
			// Rewritten in place, never shorter, the same last bytes: only
			// its time and its first bytes tell.
			name:    "rewritten in place to the same size and tail",
			initial: "aaaaaaaaaa\n" + strings.Repeat("t", 80) + "\n",
			first:   []string{"f: aaaaaaaaaa", "f: " + strings.Repeat("t", 80)},
			mutate: func(t testing.TB, path string) {
				f, err := os.OpenFile(path, os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				time.Sleep(10 * time.Millisecond) // a time of its own on coarse clocks
				if _, err := f.WriteAt([]byte("bbbbbbbbbb"), 0); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"f <Truncated>", "f: bbbbbbbbbb", "f: " + strings.Repeat("t", 80)},
		},
		{
			name:    "drops the held partial line",
			initial: "abc\npart",
			first:   []string{"f: abc"},
			mutate:  func(t testing.TB, path string) { writeFile(t, path, "new\n") },
			want:    []string{"f <Truncated>", "f: new"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			forModes(t, func(t *testing.T, opt Options) {
				path := filepath.Join(t.TempDir(), "f")
				writeFile(t, path, tt.initial)
				ch := follow(t, path, opt)
				expect(t, ch, tt.first...)
				tt.mutate(t, path)
				expect(t, ch, tt.want...)
				appendFile(t, path, "end\n")
				expect(t, ch, "f: end")
			})
		})
	}
}

// stepper drives a follower by hand, so that the test decides when it looks.
func stepper(t *testing.T, path string, opt Options) func() []string {
	t.Helper()
	opt.PollOnly = true
	f, err := newFollower(t.Context(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	f.out = make(chan Event, 1<<12)
	t.Cleanup(f.close)
	return func() []string {
		t.Helper()
		if err := f.step(true); err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			select {
			case ev := <-f.out:
				got = append(got, recs(ev)...)
			default:
				return got
			}
		}
	}
}

func TestFollowStepped(t *testing.T) {
	t.Parallel()
	type op struct {
		write    string // appended, unless replace
		truncate bool   // replace the content instead
		want     []string
	}
	tests := []struct {
		name string
		ops  []op
	}{
		{"partial lines wait for their newline", []op{
			{write: "", want: nil},
			{write: `{"a":"` + "\xe2\x82", want: nil},
			{write: "\xac" + `"}`, want: nil},
			{write: "\r", want: nil},
			{write: "\n\n", want: []string{`f: {"a":"€"}` + "\r", "f: "}},
			{write: "x", want: nil},
			{write: "", want: nil},
			{write: "y\n", want: []string{"f: xy"}},
		}},
		{"same size refill caught by fingerprint", []op{
			{write: "line-one\n", want: []string{"f: line-one"}},
			{write: "line-two\n", truncate: true, want: []string{"f <Truncated>", "f: line-two"}},
			{write: "three\n", want: []string{"f: three"}},
		}},
		{"larger refill caught by fingerprint", []op{
			{write: strings.Repeat("a", 100) + "\n", want: []string{"f: " + strings.Repeat("a", 100)}},
			{write: strings.Repeat("b", 200) + "\n", truncate: true, want: []string{"f <Truncated>", "f: " + strings.Repeat("b", 200)}},
		}},
		{"shrink while holding a partial line", []op{
			{write: "abc\ndef", want: []string{"f: abc"}},
			{write: "g\n", truncate: true, want: []string{"f <Truncated>", "f: g"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "f")
			writeFile(t, path, "")
			step := stepper(t, path, Options{})
			for i, o := range tt.ops {
				if o.truncate {
					writeFile(t, path, o.write)
				} else {
					appendFile(t, path, o.write)
				}
				got := step()
				if diff := cmp.Diff(o.want, got); diff != "" {
					t.Fatalf("op %d (%q): events mismatch (-want +got):\n%s", i, o.write, diff)
				}
			}
		})
	}
}

func TestFollowRotation(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f")
		old := openAppend(t, path)
		write(t, old, "a1\n")
		ch := follow(t, path, opt)
		expect(t, ch, "f: a1")

		if err := os.Rename(path, filepath.Join(dir, "f.1")); err != nil {
			t.Fatal(err)
		}
		write(t, old, "a2\n") // the writer has not noticed yet
		appendFile(t, path, "b1\n")
		appendFile(t, path, "b2\n")
		evs := expect(t, ch, "f: a2", "f <Rotated>", "f: b1", "f: b2")
		if last := evs[len(evs)-1]; last.Path != path || last.Offset != 6 {
			t.Fatalf("last event at %s:%d, want %s:6", last.Path, last.Offset, path)
		}
		write(t, old, "a3\n") // too late: the old file is closed
		appendFile(t, path, "b3\n")
		expect(t, ch, "f: b3")
	})
}

func TestFollowReplace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		replace func(t testing.TB, path string)
	}{
		{"atomic rename over", func(t testing.TB, path string) {
			tmp := path + ".tmp"
			writeFile(t, tmp, "x1\nx2\n")
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete and recreate", func(t testing.TB, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, "x1\nx2\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			forModes(t, func(t *testing.T, opt Options) {
				path := filepath.Join(t.TempDir(), "f")
				writeFile(t, path, "a1\n")
				ch := follow(t, path, opt)
				expect(t, ch, "f: a1")
				tt.replace(t, path)
				expect(t, ch, "f <Rotated>", "f: x1", "f: x2")
				appendFile(t, path, "x3\n")
				expect(t, ch, "f: x3")
			})
		})
	}
}

// TestFollowDirectoryReady: files that are not Ready are passed over, at
// the start and later, until they grow into being ready.
func TestFollowDirectoryReady(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		root := t.TempDir()
		real, junk := filepath.Join(root, "real.jsonl"), filepath.Join(root, "junk.jsonl")
		writeFile(t, real, "s1\n")
		past := time.Now().Add(-time.Hour)
		os.Chtimes(real, past, past)
		writeFile(t, junk, "junk\n") // newer, but not a session
		opt.Ready = func(p string) bool {
			data, _ := os.ReadFile(p)
			return strings.Contains(string(data), "s")
		}
		opt.Poll = min(opt.Poll, 20*time.Millisecond)
		ch := follow(t, root, opt)
		expect(t, ch, "real.jsonl <Switched>", "real.jsonl: s1")
		writeFile(t, filepath.Join(root, "empty.jsonl"), "")
		quiet(t, ch, 100*time.Millisecond)
		appendFile(t, real, "s2\n")
		expect(t, ch, "real.jsonl: s2")
		appendFile(t, junk, "s3\n")
		expect(t, ch, "junk.jsonl <Switched>", "junk.jsonl: junk", "junk.jsonl: s3")
	})
}

func TestFollowDirectory(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		root := t.TempDir()
		oldPath := filepath.Join(root, "p1", "old.jsonl")
		if err := os.MkdirAll(filepath.Dir(oldPath), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, "p1", "older.jsonl"), "x\n")
		past := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(root, "p1", "older.jsonl"), past, past); err != nil {
			t.Fatal(err)
		}
		writeFile(t, oldPath, "o1\n")
		writeFile(t, filepath.Join(root, "p1", "notes.txt"), "not a session\n")

		ch := follow(t, root, opt)
		evs := expect(t, ch, "old.jsonl <Switched>", "old.jsonl: o1")
		if evs[0].Path != oldPath {
			t.Fatalf("Switched to %s, want %s", evs[0].Path, oldPath)
		}
		appendFile(t, oldPath, "o2\n")
		expect(t, ch, "old.jsonl: o2")

		// A new session in a directory created after Follow started.
		sub := filepath.Join(root, "p2", "sub")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(sub, "other.txt"), "ignored\n")
		newPath := filepath.Join(sub, "new.jsonl")
		writeFile(t, newPath, "n1\n")
		evs = expect(t, ch, "new.jsonl <Switched>", "new.jsonl: n1")
		if evs[0].Path != newPath || evs[0].Offset != 0 {
			t.Fatalf("Switched to %s at %d, want %s at 0", evs[0].Path, evs[0].Offset, newPath)
		}
		appendFile(t, oldPath, "o3\n")
		appendFile(t, newPath, "n2\n")
		expect(t, ch, "new.jsonl: n2")

		// A file moved in with an older modification time is not newer.
		moved := filepath.Join(t.TempDir(), "moved.jsonl")
		writeFile(t, moved, "m1\n")
		if err := os.Chtimes(moved, past, past); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(moved, filepath.Join(root, "p1", "moved.jsonl")); err != nil {
			t.Fatal(err)
		}
		appendFile(t, newPath, "n3\n")
		expect(t, ch, "new.jsonl: n3")
	})
}

func TestFollowDirectoryRenamed(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "a", "deep"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, "a", "x.jsonl"), "x1\n")
		ch := follow(t, root, opt)
		expect(t, ch, "x.jsonl <Switched>", "x.jsonl: x1")

		// The session moves with its directory: it is still followed, and
		// the watches of the directories below follow the new name.
		if err := os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")); err != nil {
			t.Fatal(err)
		}
		appendFile(t, filepath.Join(root, "b", "x.jsonl"), "x2\n")
		expect(t, ch, "x.jsonl: x2")
		path := filepath.Join(root, "b", "deep", "y.jsonl")
		writeFile(t, path, "y1\n")
		evs := expect(t, ch, "y.jsonl <Switched>", "y.jsonl: y1")
		if evs[0].Path != path {
			t.Fatalf("Switched to %s, want %s", evs[0].Path, path)
		}
	})
}

// TestFollowDirectorySamePath: a path that comes to name another file is a
// new session there, whether the old one was rotated to a name that still
// matches, deleted and written again, or replaced by a rename.
func TestFollowDirectorySamePath(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		root := t.TempDir()
		cur := filepath.Join(root, "s.jsonl")
		writeFile(t, cur, "a1\n")
		ch := follow(t, root, opt)
		expect(t, ch, "s.jsonl <Switched>", "s.jsonl: a1")

		// Rotated: s.jsonl becomes s.1.jsonl, a new s.jsonl follows.
		if err := os.Rename(cur, filepath.Join(root, "s.1.jsonl")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		writeFile(t, cur, "b1\n")
		got := drain(t, ch, "s.jsonl: b1")
		if !slices.Contains(got, "s.jsonl <Switched>") && !slices.Contains(got, "s.jsonl <Rotated>") {
			t.Fatalf("no switch to the new s.jsonl: %q", got)
		}
		appendFile(t, cur, "b2\n")
		expect(t, ch, "s.jsonl: b2")

		// A known path other than the current one, deleted and written again.
		old := filepath.Join(root, "old.jsonl")
		writeFile(t, old, "o1\n")
		expect(t, ch, "old.jsonl <Switched>", "old.jsonl: o1")
		other := filepath.Join(root, "z.jsonl")
		writeFile(t, other, "z1\n")
		expect(t, ch, "z.jsonl <Switched>", "z.jsonl: z1")
		if err := os.Remove(old); err != nil {
			t.Fatal(err)
		}
		if opt.PollOnly {
			// Polling can only see the file gone if a look falls between:
			// the new file may get the old one's inode.
			time.Sleep(5 * opt.Poll)
		}
		writeFile(t, old, "fresh\n")
		expect(t, ch, "old.jsonl <Switched>", "old.jsonl: fresh")

		// Replaced by renaming a temporary file over it.
		tmp := filepath.Join(root, "z.tmp")
		writeFile(t, tmp, "replaced\n")
		if err := os.Rename(tmp, other); err != nil {
			t.Fatal(err)
		}
		expect(t, ch, "z.jsonl <Switched>", "z.jsonl: replaced")
	})
}

// TestFollowDirectoryStaleCurrent: when the newest session was last written
// long ago, an older one moved in later is still older than the moment the
// current one was chosen, and does not take over.
func TestFollowDirectoryStaleCurrent(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		root := t.TempDir()
		cur := filepath.Join(root, "cur.jsonl")
		writeFile(t, cur, "c1\n")
		twoHours, oneHour := time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour)
		if err := os.Chtimes(cur, twoHours, twoHours); err != nil {
			t.Fatal(err)
		}
		ch := follow(t, root, opt)
		expect(t, ch, "cur.jsonl <Switched>", "cur.jsonl: c1")
		moved := filepath.Join(t.TempDir(), "moved.jsonl")
		writeFile(t, moved, "m1\n")
		if err := os.Chtimes(moved, oneHour, oneHour); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(moved, filepath.Join(root, "moved.jsonl")); err != nil {
			t.Fatal(err)
		}
		quiet(t, ch, 150*time.Millisecond)
		appendFile(t, cur, "c2\n")
		expect(t, ch, "cur.jsonl: c2")
	})
}

// drain reads records until last arrives and returns them all.
func drain(t testing.TB, ch <-chan Event, last string) []string {
	t.Helper()
	var got []string
	timeout := time.After(waitFor)
	for !slices.Contains(got, last) {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed; got %q", got)
			}
			got = append(got, recs(ev)...)
		case <-timeout:
			t.Fatalf("timed out waiting for %q; got %q", last, got)
		}
	}
	return got
}

func TestFollowDirectoryWaitsForFirstFile(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		root := t.TempDir()
		opt.Start = -1 // does not apply to files that appear later
		ch := follow(t, root, opt)
		quiet(t, ch, 50*time.Millisecond)
		path := filepath.Join(root, "a", "b", "c.jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, path, "x\n")
		expect(t, ch, "c.jsonl <Switched>", "c.jsonl: x")
	})
}

func TestFollowBurst(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		const n = 10_000
		path := filepath.Join(t.TempDir(), "f")
		writeFile(t, path, "")
		ch := follow(t, path, opt)

		rng := rand.New(rand.NewPCG(3, 4))
		want := make([]string, n)
		var data []string
		for i := range want {
			want[i] = fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("é", rng.IntN(100)))
			line := want[i] + "\n"
			cut := rng.IntN(len(line) + 1) // split each line into two writes
			data = append(data, line[:cut], line[cut:])
		}
		done := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				done <- err
				return
			}
			defer f.Close()
			for _, s := range data {
				if _, err := f.WriteString(s); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()

		var got []string
		events := 0
		timeout := time.After(waitFor)
		for len(got) < n {
			select {
			case ev := <-ch:
				if ev.Kind != Lines {
					t.Fatalf("unexpected event %q", recs(ev))
				}
				events++
				for _, l := range ev.Lines {
					got = append(got, string(l))
				}
			case <-timeout:
				t.Fatalf("timed out with %d of %d lines", len(got), n)
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("lines mismatch (-want +got):\n%s", diff)
		}
		t.Logf("%d lines in %d events", n, events)
		quiet(t, ch, 50*time.Millisecond)
	})
}

func TestFollowStart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		initial string
		start   int64
		want    []string
	}{
		{"beginning", "old1\nold2\n", 0, []string{"f: old1", "f: old2", "f: new1"}},
		{"end", "old1\nold2\n", -1, []string{"f: new1"}},
		{"end inside a line skips it", "old1\npart", -1, []string{"f: new1"}},
		{"offset", "old1\nold2\n", 5, []string{"f: old2", "f: new1"}},
		{"offset inside a line skips it", "old1\nold2\n", 7, []string{"f: new1"}},
		{"beyond the end restarts", "old1\n", 100, []string{"f <Truncated>", "f: old1", "f: new1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			forModes(t, func(t *testing.T, opt Options) {
				path := filepath.Join(t.TempDir(), "f")
				writeFile(t, path, tt.initial)
				opt.Start = tt.start
				ch := follow(t, path, opt)
				suffix := "\nnew1\n"
				if strings.HasSuffix(tt.initial, "\n") {
					suffix = "new1\n"
				}
				appendFile(t, path, suffix)
				evs := expect(t, ch, tt.want...)
				if off, size := evs[len(evs)-1].Offset, int64(len(tt.initial+suffix)); off != size {
					t.Fatalf("Offset = %d, want %d", off, size)
				}
			})
		})
	}
}

func TestFollowBatches(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		path := filepath.Join(t.TempDir(), "f")
		var content strings.Builder
		var want []string
		for i := range 10 {
			fmt.Fprintf(&content, "line %d\n", i)
			want = append(want, fmt.Sprintf("f: line %d", i))
		}
		writeFile(t, path, content.String())
		opt.BatchLines = 3
		ch := follow(t, path, opt)
		evs := expect(t, ch, want...)
		var off int64
		for _, ev := range evs {
			if len(ev.Lines) > 3 {
				t.Errorf("event with %d lines, want at most 3", len(ev.Lines))
			}
			for _, l := range ev.Lines {
				off += int64(len(l)) + 1
			}
			if ev.Offset != off {
				t.Errorf("event Offset = %d, want %d", ev.Offset, off)
			}
		}
	})
}

func TestFollowBatchBytes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "f")
	line := strings.Repeat("x", 1536<<10)
	writeFile(t, path, strings.Repeat(line+"\n", 5))
	ch := follow(t, path, Options{PollOnly: true})
	var sizes []int
	for n := 0; n < 5; {
		select {
		case ev := <-ch:
			for _, l := range ev.Lines {
				if string(l) != line {
					t.Fatalf("line of %d bytes, want %d", len(l), len(line))
				}
			}
			sizes = append(sizes, len(ev.Lines))
			n += len(ev.Lines)
		case <-time.After(waitFor):
			t.Fatalf("timed out after batches %v", sizes)
		}
	}
	// 3 x 1.5 MiB reaches the 4 MiB cap.
	if diff := cmp.Diff([]int{3, 2}, sizes); diff != "" {
		t.Fatalf("batch sizes (-want +got):\n%s", diff)
	}
}

func TestFollowCancelWhileBlocked(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		path := filepath.Join(t.TempDir(), "f")
		writeFile(t, path, strings.Repeat("line\n", 1000))
		opt.BatchLines = 1
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := Follow(ctx, path, opt)
		if err != nil {
			t.Fatal(err)
		}
		<-ch // the follower is running and will now block on a full channel
		cancel()
		waitClosed(t, ch)
	})
}

func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// TestFollowNoLeaks is not parallel: it counts the goroutines and file
// descriptors of the whole process.
func TestFollowNoLeaks(t *testing.T) {
	fds, goroutines := openFDs(t), runtime.NumGoroutine()
	for _, m := range modes {
		for _, dirMode := range []bool{false, true} {
			root := t.TempDir()
			path := filepath.Join(root, "s.jsonl")
			writeFile(t, path, "a\n")
			target := path
			if dirMode {
				target = root
			}
			ctx, cancel := context.WithCancel(context.Background())
			ch, err := Follow(ctx, target, m.opt)
			if err != nil {
				t.Fatal(err)
			}
			if dirMode {
				expect(t, ch, "s.jsonl <Switched>", "s.jsonl: a")
			} else {
				expect(t, ch, "s.jsonl: a")
			}
			// Replace the file so that two get opened.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			writeFile(t, path, "b\n")
			expect(t, ch, "s.jsonl <Rotated>", "s.jsonl: b")
			cancel()
			waitClosed(t, ch)
		}
	}
	deadline := time.Now().Add(waitFor)
	for {
		g, f := runtime.NumGoroutine(), openFDs(t)
		if g <= goroutines && f <= fds {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after cancel: %d goroutines (was %d), %d fds (was %d)", g, goroutines, f, fds)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// BenchmarkFollowLatency measures the time from the write of a line to its
// delivery, with notifications.
func BenchmarkFollowLatency(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	writeFile(b, path, "")
	ch := follow(b, path, Options{Poll: time.Hour})
	w := openAppend(b, path)
	line := `{"type":"assistant","message":{"content":"` + strings.Repeat("x", 200) + `"}}` + "\n"
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		write(b, w, line)
		for n := 0; n < 1; {
			ev := <-ch
			n += len(ev.Lines)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "µs-median")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "µs-p99")
}

// TestFollowDeleted: a followed file still deleted at the second poll
// tick is said to be, once; a file written at its name again is followed
// from its start.
func TestFollowDeleted(t *testing.T) {
	t.Parallel()
	forModes(t, func(t *testing.T, opt Options) {
		opt.Poll = 20 * time.Millisecond
		path := filepath.Join(t.TempDir(), "f")
		writeFile(t, path, "a\n")
		ch := follow(t, path, opt)
		expect(t, ch, "f: a")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		expect(t, ch, "f <Error: "+path+" was deleted or moved away: following what it held until a file comes back there>")
		quiet(t, ch, 100*time.Millisecond)
		writeFile(t, path, "b\n")
		expect(t, ch, "f <Rotated>", "f: b")
	})
}

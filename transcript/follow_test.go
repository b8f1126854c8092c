package transcript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/transcript/lines"
)

// claudeLines returns the fixture's records, one string per line.
func claudeLines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(fixture("claude.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
}

// waitFor reads updates until ok accepts one or the deadline passes.
func waitFor(t *testing.T, ch <-chan Update, what string, ok func(Update) bool) Update {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case u, open := <-ch:
			if !open {
				t.Fatalf("channel closed waiting for %s", what)
			}
			touch(u.Session)
			if ok(u) {
				return u
			}
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// touch reads every part of a snapshot, so the race detector sees any
// sharing with the reader that goes on appending.
func touch(s *Session) (n int) {
	if s == nil {
		return 0
	}
	for _, c := range append([]Call{s.Leading}, s.Calls...) {
		n += len(c.Text) + len(c.ToolCalls) + len(c.Prompts)
		if c.Usage != nil {
			n += int(c.Usage.Output)
		}
		for _, r := range c.Results {
			n += len(r.Text) + len(r.Tool)
		}
	}
	for _, e := range s.Events {
		n += len(e.Summary)
	}
	for k, v := range s.Skipped {
		n += len(k) + v
	}
	return n + len(s.Warnings) + len(s.Models)
}

func calls(u Update) int {
	if u.Session == nil {
		return -1
	}
	return len(u.Session.Calls)
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestFollowFile(t *testing.T) {
	for _, pollOnly := range []bool{false, true} {
		t.Run(map[bool]string{false: "notify", true: "poll"}[pollOnly], func(t *testing.T) {
			ls := claudeLines(t)
			path := filepath.Join(t.TempDir(), "s.jsonl")
			// The first call's two lines are in the file; the second call's first line is half written.
			appendTo(t, path, strings.Join(ls[:6], "")+ls[6][:40])
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ch, err := Follow(ctx, path, FollowOptions{Poll: 20 * time.Millisecond, PollOnly: pollOnly})
			if err != nil {
				t.Fatal(err)
			}
			u := waitFor(t, ch, "the first call", func(u Update) bool { return calls(u) == 1 })
			if len(u.Session.Calls[0].Results) != 1 || u.Session.WarningCount != 0 {
				t.Fatalf("a held partial line must not be parsed: %+v", u.Session.Warnings)
			}
			appendTo(t, path, ls[6][40:]+strings.Join(ls[7:17], ""))
			u = waitFor(t, ch, "three calls", func(u Update) bool { return calls(u) == 3 })
			if u.Session.Calls[2].Segment != 1 || len(u.Session.Calls[1].Results) != 2 {
				t.Errorf("segment %d, results %d", u.Session.Calls[2].Segment, len(u.Session.Calls[1].Results))
			}
			if u.Offset != u.Size {
				t.Errorf("offset %d of %d", u.Offset, u.Size)
			}
			// Truncate and write a shorter session: it is read again from the start.
			if err := os.WriteFile(path, []byte(strings.Join(ls[:5], "")), 0o600); err != nil {
				t.Fatal(err)
			}
			var sawRestart bool
			u = waitFor(t, ch, "one call after the restart", func(u Update) bool {
				sawRestart = sawRestart || u.Restarted == RestartTruncated
				return calls(u) == 1
			})
			if !sawRestart || len(u.Session.Calls[0].Results) != 0 {
				t.Errorf("restart seen: %v; results after truncation: %d", sawRestart, len(u.Session.Calls[0].Results))
			}
		})
	}
}

// sessionAt writes lines to a new file at path, making its folder.
func sessionAt(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, strings.Join(lines, ""))
}

// followDir follows dir, polling every 20 ms, until the test ends.
func followDir(t *testing.T, dir string) <-chan Update {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch, err := Follow(ctx, dir, FollowOptions{Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

func TestFollowDirectorySwitches(t *testing.T) {
	ls := claudeLines(t)
	dir, _, ch := followOldSession(t, ls)
	newer := filepath.Join(dir, "proj2", "new.jsonl")
	sessionAt(t, newer, ls[:17])
	var sawSwitch bool
	waitFor(t, ch, "the switch", func(u Update) bool {
		sawSwitch = sawSwitch || u.Restarted == RestartSwitched
		return u.Path == newer && calls(u) == 3
	})
	if !sawSwitch {
		t.Error("no update said the session was switched")
	}
}

// TestFollowDirectoryMoved: the followed session moves with its folder; its
// updates then name it where it is now.
func TestFollowDirectoryMoved(t *testing.T) {
	ls := claudeLines(t)
	dir := t.TempDir()
	from := filepath.Join(dir, "a", "s.jsonl")
	sessionAt(t, from, ls[:6])
	ch := followDir(t, dir)
	waitFor(t, ch, "the session", func(u Update) bool { return calls(u) == 1 && u.Path == from })
	if err := os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, "b", "s.jsonl")
	// The move alone is told, though no line came with it.
	waitFor(t, ch, "the move", func(u Update) bool { return u.Path == to })
	appendTo(t, to, strings.Join(ls[6:17], ""))
	u := waitFor(t, ch, "the moved session", func(u Update) bool { return calls(u) == 3 })
	if u.Path != to || u.Session.Path != to || u.Restarted != "" {
		t.Errorf("update names %s (session %s, restarted %q), want %s and no restart", u.Path, u.Session.Path, u.Restarted, to)
	}
}

func TestFollowNotATranscript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.jsonl")
	appendTo(t, path, strings.Repeat("just text\n", detectLimit))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Follow(ctx, path, FollowOptions{Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	u := waitFor(t, ch, "the error", func(u Update) bool { return u.Err != nil })
	if _, ok := u.Err.(*NotTranscriptError); !ok {
		t.Errorf("err = %v", u.Err)
	}
}

func TestFollowClosesOnCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, claudeLines(t)[2])
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := Follow(ctx, path, FollowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, open := <-ch:
			if !open {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed after cancel")
		}
	}
}

// BenchmarkFollowLatency appends one line to a followed session and waits
// for the update that carries it: the time from write to new state.
func BenchmarkFollowLatency(b *testing.B) {
	ls := strings.SplitAfter(strings.TrimSuffix(func() string {
		data, err := os.ReadFile(fixture("claude.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		return string(data)
	}(), "\n"), "\n")
	path := filepath.Join(b.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(ls[2]), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Follow(ctx, path, FollowOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for u := range ch {
		if u.Session != nil {
			break
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	prompts := 1
	b.ResetTimer()
	b.StopTimer()
	for range b.N {
		prompts++
		// The coalescing window would otherwise batch the next write.
		time.Sleep(35 * time.Millisecond)
		b.StartTimer()
		f.WriteString(`{"type":"user","sessionId":"x","message":{"role":"user","content":"more"}}` + "\n")
		for u := range ch {
			if u.Session != nil && len(u.Session.Leading.Prompts) >= prompts {
				break
			}
		}
		b.StopTimer()
	}
}

// TestFollowLongLine: a line over MaxLineBytes appended to a followed file
// is skipped with a warning naming its line; the calls after it arrive.
func TestFollowLongLine(t *testing.T) {
	ls := claudeLines(t)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, strings.Join(ls[:6], ""))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := Follow(ctx, path, FollowOptions{Poll: 20 * time.Millisecond, Options: Options{MaxLineBytes: 8192}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ch, "the first call", func(u Update) bool { return calls(u) == 1 })
	appendTo(t, path, `{"type":"user","junk":"`+strings.Repeat("x", 10_000)+"\"}\n"+strings.Join(ls[6:17], ""))
	u := waitFor(t, ch, "three calls", func(u Update) bool { return calls(u) == 3 })
	want := "line 7: line of 10025 bytes is longer than the 8192-byte limit (--max-line-bytes); skipped"
	if w := u.Session.Warnings; len(w) != 1 || fmt.Sprintf("line %d: %s", w[0].Line, w[0].Message) != want {
		t.Errorf("warnings %+v, want %q", w, want)
	}
	if u.Offset != u.Size {
		t.Errorf("offset %d of %d", u.Offset, u.Size)
	}
}

// TestFollowDirectoryWaitsForASession: an empty file and one of junk that
// appear beside the followed session do not take it over; the session's
// new calls keep arriving. Once one of them holds a session, it is
// switched to, with a notice.
func TestFollowDirectoryWaitsForASession(t *testing.T) {
	ls := claudeLines(t)
	dir, old, ch := followOldSession(t, ls)

	empty := filepath.Join(dir, "proj", "empty.jsonl")
	sessionAt(t, empty, nil)
	sessionAt(t, filepath.Join(dir, "proj", "junk.jsonl"), []string{"not json at all\n", `{"some":"other tool's log"}` + "\n"})
	time.Sleep(200 * time.Millisecond) // ten polls
	appendTo(t, old, strings.Join(ls[6:17], ""))
	u := waitFor(t, ch, "the old session's new calls", func(u Update) bool {
		if u.Restarted != "" || u.Path != old {
			t.Fatalf("switched (%q) to %s, which holds no session", u.Restarted, u.Path)
		}
		return calls(u) == 3
	})
	if u.Session.Path != old {
		t.Errorf("the header names %s", u.Session.Path)
	}

	appendTo(t, empty, strings.Join(ls[:6], ""))
	var sawSwitch bool
	waitFor(t, ch, "the switch once it holds a session", func(u Update) bool {
		sawSwitch = sawSwitch || u.Restarted == "switched"
		return u.Path == empty && calls(u) == 1
	})
	if !sawSwitch {
		t.Error("no update said the session was switched")
	}
}

// followOldSession follows a folder holding one session, proj/old.jsonl
// (the first six lines of ls, last written an hour ago), and returns once
// its one call has arrived.
func followOldSession(t *testing.T, ls []string) (dir, old string, ch <-chan Update) {
	t.Helper()
	dir = t.TempDir()
	old = filepath.Join(dir, "proj", "old.jsonl")
	sessionAt(t, old, ls[:6])
	past := time.Now().Add(-time.Hour)
	os.Chtimes(old, past, past)
	ch = followDir(t, dir)
	waitFor(t, ch, "the old session", func(u Update) bool { return calls(u) == 1 && u.Path == old })
	return dir, old, ch
}

// TestFollowEmptyFile: following a file that holds nothing yet, or an empty
// folder, one update still says what the first look found (no session, no
// bytes), so that a viewer does not wait on it as if reading were under way.
func TestFollowEmptyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.jsonl")
	appendTo(t, path, "")
	for _, p := range []string{path, t.TempDir()} {
		ctx, cancel := context.WithCancel(context.Background())
		ch, err := Follow(ctx, p, FollowOptions{Poll: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		u := waitFor(t, ch, "the first look at "+p, func(Update) bool { return true })
		if u.Session != nil || u.Offset != 0 || u.Size != 0 || u.Err != nil || u.Restarted != "" {
			t.Errorf("%s: first update %+v, want no session, nothing read of nothing", p, u)
		}
		cancel()
	}
}

// A problem of the watch (a file that could not be read for a while) is
// over at the next lines read; a file that is no transcript stays one.
func TestFollowErrorClears(t *testing.T) {
	f := &follower{path: "s.jsonl"}
	f.handle(lines.Event{Kind: lines.Lines, Lines: [][]byte{[]byte(`{"spillway":"transcript/v1","session_id":"s"}`)}, Offset: 46})
	f.handle(lines.Event{Kind: lines.Error, Err: errors.New("open s.jsonl: permission denied")})
	if u := f.update(); u.Err == nil {
		t.Fatal("the error is not said")
	}
	f.handle(lines.Event{Kind: lines.Lines, Lines: [][]byte{[]byte(`{"role":"assistant","model":"m","content":"hi"}`)}, Offset: 94})
	if u := f.update(); u.Err != nil {
		t.Errorf("after lines read: %v", u.Err)
	}
	g := &follower{path: "notes.jsonl"}
	for range detectLimit + 1 {
		g.handle(lines.Event{Kind: lines.Lines, Lines: [][]byte{[]byte("just text")}})
	}
	if u := g.update(); u.Err == nil {
		t.Error("a file that is no transcript is not said to be one")
	}
}

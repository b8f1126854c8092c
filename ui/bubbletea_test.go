package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// TestFollowStartsInBackground holds a folder's walk (a large
// ~/.claude/projects) until the first frame is drawn: Init and Update must
// not wait for it, and the session shows once the follower answers.
func TestFollowStartsInBackground(t *testing.T) {
	data := demoData(t)
	release := make(chan struct{})
	walked := make(chan struct{}, 1)
	follow = func(ctx context.Context, path string, opt transcript.FollowOptions) (<-chan transcript.Update, error) {
		walked <- struct{}{}
		<-release
		s, err := transcript.Read(strings.NewReader(string(data)), "newest.jsonl", opt.Options)
		ch := make(chan transcript.Update, 1)
		ch <- transcript.Update{Session: s, Err: err, Path: path + "/newest.jsonl"}
		close(ch)
		return ch, nil
	}
	t.Cleanup(func() { follow = transcript.Follow })
	policy, _ := guard.Preset("harness-rs-0.0.40")
	m := New(Options{Source: Source{Path: t.TempDir()}, Follow: true, Policy: policy, Prices: pricing.Default(), Counter: counter})

	frame := make(chan string, 1)
	var cmd tea.Cmd
	go func() {
		cmd = m.Init()
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		frame <- screen(m)
	}()
	select {
	case out := <-frame:
		if !strings.Contains(out, "live") {
			t.Errorf("the first frame does not say the folder is followed:\n%s", out)
		}
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("the first frame waited for the folder's walk")
	}
	done := make(chan struct{})
	go func() { drive(t, m, cmd); close(done) }() // the follower's command waits for the walk
	select {
	case <-walked:
	case <-time.After(2 * time.Second):
		t.Fatal("the follower never started")
	}
	close(release)
	<-done
	if m.session == nil || len(m.session.Calls) != 16 {
		t.Fatalf("the followed session never arrived")
	}
}

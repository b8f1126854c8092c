package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/internal/sessions"
)

// A followed session list rescans when its source says a log changed
// (sessions.Watcher, sessions_watch.go); a source that cannot say so is
// rescanned every rescanEvery. While nothing changes nothing runs but one
// timer, set for when the next live mark goes out.

type (
	// fleetWatchMsg says the watch of ctx is set up, or why not.
	fleetWatchMsg struct {
		ctx     context.Context
		changes <-chan struct{}
		warning string
		err     error
	}
	// fleetChangedMsg says a log of the watch of ctx changed.
	fleetChangedMsg struct{ ctx context.Context }
	// fleetExpireMsg says a live mark may have gone out.
	fleetExpireMsg struct{}
	// fleetPaceMsg says a paced look at a followed list is due.
	fleetPaceMsg struct{}
)

// fleetPace is the least time from one look at a followed list to the next
// that changes ask for: each look reads what changed and replays it at
// every ceiling of the chart, and an agent writing ten lines a second kept
// a fifth of a core busy (205 ticks in 10 s; 41-43 paced).
var fleetPace = time.Second

// rescanPaced looks again now, or once fleetPace has passed since the last
// look came back, however many changes come meanwhile.
func (f *listScreen) rescanPaced() tea.Cmd {
	wait := fleetPace - time.Since(f.scannedAt)
	if wait <= 0 {
		return f.rescan()
	}
	f.dirty = true
	if f.pacing {
		return nil
	}
	f.pacing = true
	return tea.Tick(wait, func(time.Time) tea.Msg { return fleetPaceMsg{} })
}

// liveWatch turns the file-system watch on; tests, which rescan when they
// say so, turn it off.
var liveWatch = true

func watchCmd(ctx context.Context, w sessions.Watcher) tea.Cmd {
	return func() tea.Msg {
		ch, warning, err := w.Watch(ctx)
		return fleetWatchMsg{ctx: ctx, changes: ch, warning: warning, err: err}
	}
}

func waitChangeCmd(ctx context.Context, ch <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-ctx.Done():
			return nil
		case <-ch:
			return fleetChangedMsg{ctx: ctx}
		}
	}
}

// followLater keeps a followed list looking: through the watch, started
// once, or by polling when there is none.
func (f *listScreen) followLater() tea.Cmd {
	if !f.following {
		return nil
	}
	w, ok := f.src.(sessions.Watcher)
	if !ok || !liveWatch || f.watchFailed {
		return f.rescanLater()
	}
	if f.watchCancel == nil {
		ctx, cancel := context.WithCancel(f.run)
		f.watchCtx, f.watchCancel = ctx, cancel
		return watchCmd(ctx, w)
	}
	return f.expireLater()
}

// stopWatch ends the watch, when following stops.
func (f *listScreen) stopWatch() {
	if f.watchCancel != nil {
		f.watchCancel()
	}
	f.watchCtx, f.watchCancel, f.changes, f.watchFailed, f.dirty = nil, nil, nil, false, false
}

// fleetWatching takes the watch's setup.
func (f *listScreen) watching(msg fleetWatchMsg) tea.Cmd {
	if msg.ctx != f.watchCtx {
		return nil // a watch stopped before it started
	}
	if msg.err != nil {
		f.watchFailed = true
		return tea.Batch(f.ctx.flash("no file-system events: "+msg.err.Error()+"; polling"), f.rescanLater())
	}
	f.changes = msg.changes
	cmds := []tea.Cmd{waitChangeCmd(msg.ctx, msg.changes), f.expireLater()}
	if msg.warning != "" {
		cmds = append(cmds, f.ctx.flash(msg.warning))
	}
	// What changed while the watch was set up is in the next scan.
	if f.scanning {
		f.dirty = true
	} else {
		cmds = append(cmds, f.rescan())
	}
	return tea.Batch(cmds...)
}

// fleetChanged rescans after a change, or after the scan under way.
func (f *listScreen) changed(msg fleetChangedMsg) tea.Cmd {
	if msg.ctx != f.watchCtx || !f.following {
		return nil
	}
	next := waitChangeCmd(f.watchCtx, f.changes)
	if f.scanning {
		f.dirty = true
		return next
	}
	return tea.Batch(next, f.rescanPaced())
}

// expireLater sets the timer for when the first live mark goes out.
func (f *listScreen) expireLater() tea.Cmd {
	if f.expiring || f.watchCancel == nil {
		return nil
	}
	var first time.Time
	for _, r := range f.list.rows {
		if out := r.Modified.Add(sessions.LiveWindow); out.After(f.now) && (first.IsZero() || out.Before(first)) {
			first = out
		}
	}
	if first.IsZero() {
		return nil
	}
	f.expiring = true
	return tea.Tick(first.Sub(f.now)+10*time.Millisecond, func(time.Time) tea.Msg { return fleetExpireMsg{} })
}

// fleetExpired takes live marks out of sessions no longer written.
func (f *listScreen) expired() tea.Cmd {
	f.expiring = false
	f.now = clock()
	f.markLive()
	f.list.refresh()
	return f.expireLater()
}

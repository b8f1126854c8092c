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
)

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
func (m *Model) followLater() tea.Cmd {
	f := m.fleet
	if !f.following {
		return nil
	}
	w, ok := f.src.(sessions.Watcher)
	if !ok || !liveWatch || f.watchFailed {
		return m.rescanLater()
	}
	if f.watchCancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f.watchCtx, f.watchCancel = ctx, cancel
		return watchCmd(ctx, w)
	}
	return m.expireLater()
}

// stopWatch ends the watch, when following stops.
func (m *Model) stopWatch() {
	f := m.fleet
	if f.watchCancel != nil {
		f.watchCancel()
	}
	f.watchCtx, f.watchCancel, f.changes, f.watchFailed, f.dirty = nil, nil, nil, false, false
}

// fleetWatching takes the watch's setup.
func (m *Model) fleetWatching(msg fleetWatchMsg) tea.Cmd {
	f := m.fleet
	if msg.ctx != f.watchCtx {
		return nil // a watch stopped before it started
	}
	if msg.err != nil {
		f.watchFailed = true
		return tea.Batch(m.flash("no file-system events: "+msg.err.Error()+"; polling"), m.rescanLater())
	}
	f.changes = msg.changes
	cmds := []tea.Cmd{waitChangeCmd(msg.ctx, msg.changes), m.expireLater()}
	if msg.warning != "" {
		cmds = append(cmds, m.flash(msg.warning))
	}
	// What changed while the watch was set up is in the next scan.
	if f.scanning {
		f.dirty = true
	} else {
		cmds = append(cmds, m.rescan())
	}
	return tea.Batch(cmds...)
}

// fleetChanged rescans after a change, or after the scan under way.
func (m *Model) fleetChanged(msg fleetChangedMsg) tea.Cmd {
	f := m.fleet
	if msg.ctx != f.watchCtx || !f.following {
		return nil
	}
	next := waitChangeCmd(f.watchCtx, f.changes)
	if f.scanning {
		f.dirty = true
		return next
	}
	return tea.Batch(next, m.rescan())
}

// expireLater sets the timer for when the first live mark goes out.
func (m *Model) expireLater() tea.Cmd {
	f := m.fleet
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
func (m *Model) fleetExpired() tea.Cmd {
	f := m.fleet
	f.expiring = false
	f.now = clock()
	m.markLive()
	f.list.refresh()
	return m.expireLater()
}

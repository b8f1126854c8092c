package ui

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/transcript"
)

// Messages the commands below send back to Update.
type (
	// progressMsg reports loading or counting under way.
	progressMsg struct {
		phase       string
		done, total int64
		next        tea.Cmd
	}
	// rowsMsg carries a session read for its sizes, each call priced as
	// recorded, while the full read goes on; next waits for it.
	rowsMsg struct {
		src      string
		session  *transcript.Session
		recorded *replay.Recorded // nil unpriced
		next     tea.Cmd
	}
	// loadedMsg carries a session read in full, or read without its
	// results' texts, which texts then reads again when needed.
	loadedMsg struct {
		src     string // the path read, "" for a reader
		session *transcript.Session
		texts   *app.FileTexts
		err     error
	}
	// textReadMsg carries a result's text read again for the detail pane.
	textReadMsg struct {
		prep   *replay.Prepared
		result *transcript.ToolResult
		text   string
		err    error
	}
	// preparedMsg carries the session measured and counted, and what
	// spillway's hook cut from it when it ran in it (nil for nothing).
	preparedMsg struct {
		seq      int
		prep     *replay.Prepared
		realized *ledger.Totals
		err      error
	}
	// replayedMsg carries a replay under the policy of request seq.
	replayedMsg struct {
		seq    int
		replay *replay.Run
		spills *spill.Planned // the spill files it planned, none written
		err    error
	}
	// followMsg carries a followed session's newest state.
	followMsg struct {
		id     int
		update transcript.Update
		next   tea.Cmd
	}
	// followEndedMsg says follower id stopped.
	followEndedMsg struct{ id int }
	// searchedMsg carries the calls matching a search.
	searchedMsg struct {
		query string
		calls []int
	}
	// wroteMsg reports the policy file written; as names the harness
	// whose configuration it holds ("" for spillway's own file).
	wroteMsg struct {
		path   string
		exists bool // not written: the file is there, overwrite it?
		err    error
		as     string
	}
	// tickMsg clears transient notices.
	noticeExpiredMsg struct{ id int }
)

// pipeline is the shared pipeline's options for these.
func (o Options) pipeline() app.Options {
	return app.Options{Prices: o.Prices, Read: o.Read, Policy: o.Policy, Counter: o.Counter, SpillRoot: o.SpillRoot, Ledger: o.Ledger}
}

// loadCmd reads the source in the background and reports progress every
// 100 ms until the session is in. A large file is read twice: first for
// its sizes alone, which goes several times faster and brings every call
// with its recorded cost to the screen (rowsMsg), then with the texts the
// replay needs (loadedMsg), which takes its place. Above
// textsOnDemandBytes that second read keeps no result's text: each is
// read again from the file when needed (app.FileTexts).
func loadCmd(o Options) tea.Cmd {
	src, opt := o.Source, o.Read
	in := app.Source{Name: src.Name, Path: src.Path}
	switch {
	case src.Data != nil:
		in.Reader = bytes.NewReader(src.Data)
	case src.Stdin != nil:
		in.Reader = src.Stdin
	}
	var done, total atomic.Int64
	out := make(chan loadedMsg, 1)
	var size int64
	if src.Path != "" && in.Reader == nil {
		if info, err := os.Stat(src.Path); err == nil {
			size = info.Size()
			if size >= textsOnDemandBytes {
				limitMemory(size)
			} else {
				paceGC(size)
			}
		}
	}
	rowsFirst := in.Reader == nil && !opt.SizesOnly && size >= rowsFirstBytes
	// After the rows, when they come first: they must have the processor.
	start := make(chan struct{})
	crash.Go(func() {
		<-start
		progress := func(d, t int64) {
			done.Store(d)
			total.Store(t)
		}
		if in.Reader == nil && size >= textsOnDemandBytes {
			s, texts, err := app.Options{Read: opt}.LoadTexts(src.Path, progress)
			out <- loadedMsg{src: src.Path, session: s, texts: texts, err: err}
			return
		}
		s, err := app.Options{Read: opt}.Load(in, progress)
		out <- loadedMsg{src: src.Path, session: s, err: err}
	})
	full := func() (int64, int64) { return done.Load(), total.Load() }
	if !rowsFirst {
		close(start)
		return awaitWithProgress(out, "reading", full)
	}
	var rowsDone, rowsTotal atomic.Int64
	rows := make(chan rowsMsg, 1)
	crash.Go(func() {
		defer close(start)
		msg, err := readRows(o, func(d, t int64) {
			rowsDone.Store(d)
			rowsTotal.Store(t)
		})
		if err != nil {
			close(rows) // the full read says what is wrong
			return
		}
		rows <- msg
	})
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case msg, ok := <-rows:
			if !ok {
				return awaitWithProgress(out, "reading", full)()
			}
			msg.next = awaitWithProgress(out, "reading texts", full)
			return msg
		case <-time.After(100 * time.Millisecond):
			return progressMsg{phase: "reading", done: rowsDone.Load(), total: rowsTotal.Load(), next: wait}
		}
	}
	return wait
}

// readRows reads o's source file for its sizes alone and prices its
// calls as recorded.
func readRows(o Options, progress func(done, total int64)) (rowsMsg, error) {
	read := o.Read
	read.SizesOnly = true
	s, err := app.Options{Read: read}.Load(app.Source{Name: o.Source.Name, Path: o.Source.Path}, progress)
	if err != nil {
		return rowsMsg{}, err
	}
	return rowsMsg{src: o.Source.Path, session: s, recorded: priceRecorded(s, o.Prices)}, nil
}

// textsOnDemandBytes is the smallest file whose results' texts are not
// held but read again from it when needed: above it a session's texts
// would take most of the memory the file's size is. Below it re-tuning
// keeps every text at hand. Tests lower it.
var textsOnDemandBytes int64 = 256 << 20

// readTextCmd reads r's text again from the session file.
func readTextCmd(p *replay.Prepared, r *transcript.ToolResult) tea.Cmd {
	return func() tea.Msg {
		text := p.Text(r)
		return textReadMsg{prep: p, result: r, text: text, err: p.TextErr()}
	}
}

// rowsFirstBytes is the smallest file whose calls are shown from a read
// of its sizes before its texts are in: below it the full read takes
// about as long as a frame. Tests lower it.
var rowsFirstBytes int64 = 32 << 20

// priceRecorded prices every call of a session read for its sizes as
// recorded, as the replay prices it; nil without prices.
func priceRecorded(s *transcript.Session, prices *pricing.Table) *replay.Recorded {
	if prices == nil {
		return nil
	}
	return replay.PriceRecorded(s, prices)
}

// awaitWithProgress waits for the one message a background job sends on
// out, reporting its progress every 100 ms meanwhile.
func awaitWithProgress[T tea.Msg](out <-chan T, phase string, progress func() (done, total int64)) tea.Cmd {
	var wait tea.Cmd
	wait = func() tea.Msg {
		select {
		case msg := <-out:
			return msg
		case <-time.After(100 * time.Millisecond):
			done, total := progress()
			return progressMsg{phase: phase, done: done, total: total, next: wait}
		}
	}
	return wait
}

// prepareCmd counts the session's results, reporting progress; texts,
// when not nil, reads those the session was read without.
func prepareCmd(seq int, s *transcript.Session, texts replay.TextSource, opt Options) tea.Cmd {
	var done, total atomic.Int64
	out := make(chan preparedMsg, 1)
	crash.Go(func() {
		p, err := opt.pipeline().PrepareTexts(context.Background(), s, func(d, t int) {
			done.Store(int64(d))
			total.Store(int64(t))
		}, texts)
		msg := preparedMsg{seq: seq, prep: p, err: err}
		if err == nil {
			p.CostParts() // split here, so that no Update waits for it
			msg.realized = realized(opt.Ledger, s.ID)
		}
		out <- msg
	})
	return awaitWithProgress(out, "counting tokens", func() (int64, int64) { return done.Load(), total.Load() })
}

// replayCmd replays the prepared session under policy, planning its spill
// files: they are written when needed (spills.go), not at every replay.
func replayCmd(seq int, p *replay.Prepared, pol policy.Policy, opt Options) tea.Cmd {
	return func() tea.Msg {
		rp, spills, err := opt.pipeline().ReplayPlanned(p, pol)
		return replayedMsg{seq: seq, replay: rp, spills: spills, err: err}
	}
}

// followCmd waits for the follower's next update.
func followCmd(id int, ch <-chan transcript.Update) tea.Cmd {
	var wait tea.Cmd
	wait = func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return followEndedMsg{id: id}
		}
		return followMsg{id: id, update: u, next: wait}
	}
	return wait
}

// agentFileMsg says whether a file an agent spilled a result to exists.
type agentFileMsg struct {
	path   string
	exists bool
}

// statFile is os.Stat; tests stand in for it.
var statFile = os.Stat

// agentFileCmd looks the file up.
func agentFileCmd(path string) tea.Cmd {
	return func() tea.Msg {
		_, err := statFile(path)
		return agentFileMsg{path: path, exists: err == nil}
	}
}

// followStartedMsg carries a follower started, or why it could not be.
type followStartedMsg struct {
	id  int
	ch  <-chan transcript.Update
	err error
}

// follow starts a follower; tests stand in for it.
var follow = transcript.Follow

// startFollowCmd starts following path in the background: a folder is
// walked before its newest session is known, which must not hold up a frame.
func startFollowCmd(ctx context.Context, id int, path string, opt transcript.Options) tea.Cmd {
	return func() tea.Msg {
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			paceGC(info.Size())
		}
		ch, err := follow(ctx, path, transcript.FollowOptions{Options: opt})
		return followStartedMsg{id: id, ch: ch, err: err}
	}
}

// writePolicyCmd writes the tuned policy; unless overwrite, a file that
// is there already is left alone and reported, for the user to confirm.
// Nothing is written through a link (policy.Save).
func writePolicyCmd(path string, p policy.Policy, overwrite bool) tea.Cmd {
	return func() tea.Msg {
		err := policy.Save(path, p, overwrite)
		return wroteMsg{path: path, exists: errors.Is(err, fs.ErrExist), err: err}
	}
}

// noticeTTL is how long a notice stays in the footer; 0 keeps it until
// the next one (tests).
var noticeTTL = 4 * time.Second

func expireNotice(id int) tea.Cmd {
	if noticeTTL <= 0 {
		return nil
	}
	return tea.Tick(noticeTTL, func(time.Time) tea.Msg { return noticeExpiredMsg{id: id} })
}

// searchCmd finds the calls whose text, tool names, inputs or results
// contain query, ignoring case.
func searchCmd(s *transcript.Session, p *replay.Prepared, query string) tea.Cmd {
	return func() tea.Msg {
		text := func(r *transcript.ToolResult) string { return r.Text }
		if p != nil {
			text = p.Text
		}
		q := strings.ToLower(query)
		var calls []int
		has := func(text string) bool { return strings.Contains(strings.ToLower(text), q) }
		for i := range s.Calls {
			c := &s.Calls[i]
			found := has(c.Text)
			for _, tc := range c.ToolCalls {
				found = found || has(tc.Name) || has(string(tc.Input))
			}
			for j := range c.Results {
				r := &c.Results[j]
				found = found || has(r.Tool) || has(text(r))
			}
			if found {
				calls = append(calls, i)
			}
		}
		return searchedMsg{query: query, calls: calls}
	}
}

// hazardsIndexedMsg says prep's hazard index is built.
type hazardsIndexedMsg struct{ prep *replay.Prepared }

// indexHazardsCmd builds prep's hazard index in the background, so that
// the first key to shape a result does not pay for it.
func indexHazardsCmd(prep *replay.Prepared) tea.Cmd {
	return func() tea.Msg {
		prep.IndexHazards()
		return hazardsIndexedMsg{prep: prep}
	}
}

// realized sums what spillway's hook's ledger in dir holds for session:
// nil when it holds nothing (or cannot be read).
func realized(dir, session string) *ledger.Totals {
	if dir == "" || session == "" {
		return nil
	}
	entries, _, err := ledger.Read(dir, session)
	if err != nil || len(entries) == 0 {
		return nil
	}
	var t ledger.Totals
	for _, e := range ledger.ByID(entries) {
		t.Add(e)
	}
	return &t
}

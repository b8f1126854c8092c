package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
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
	"github.com/spillway-dev/spillway/internal/memory"
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
		// partial: the calls of the file's first part only.
		partial bool
		next    tea.Cmd
	}
	// loadedMsg carries a session read in full, or read without its
	// results' texts, which texts then reads again when needed.
	loadedMsg struct {
		src     string // the path read, "" for a reader
		session *transcript.Session
		texts   *app.FileTexts
		err     error
		// subs are its sub-agents' logs, reconciled with it; subErr says
		// which could not be read.
		subs   []*transcript.Session
		subErr error
		// recorded prices its calls as recorded until the first replay,
		// where no rows came first: a session read without its results'
		// texts is read once, as quickly as for its sizes alone.
		recorded *replay.Recorded
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
		subs     []*replay.Prepared // its sub-agents' logs, in order
		realized *ledger.Totals
		err      error
	}
	// replayedMsg carries a replay under the policy of request seq, of
	// the session's own log and of each of its sub-agents'.
	replayedMsg struct {
		seq       int
		replay    *replay.Run
		spills    *spill.Planned // the spill files it planned, none written
		subs      []*replay.Run
		subSpills []*spill.Planned
		err       error
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
		said   string // what installing the hook did
	}
)

// pipeline is the shared pipeline's options for these.
func (o Options) pipeline() app.Options {
	return app.Options{Prices: o.Prices, Read: o.Read, Policy: o.Policy, Counter: o.Counter, SpillRoot: o.SpillRoot, Ledger: o.Ledger}
}

// loadCmd reads src in the background until ctx ends, in stages, each
// shown as it is in, with progress every 100 ms; the reads start when the
// command runs. A file of headFirstBytes or more shows the calls of its
// first headBytes at once, each with its recorded cost (rowsMsg, partial):
// the first frame waits for no more of a log, however large. A file of
// rowsFirstBytes or more is then read for its sizes alone, which goes
// several times faster than a full read and brings every call with its
// recorded cost. Last comes the read with the texts the replay needs
// (loadedMsg), which takes their place; from textsOnDemandBytes it keeps
// no result's text, each read again from the file when needed
// (app.FileTexts), which makes it as quick as the read for sizes: it is
// the only one, and brings the recorded costs itself. What the session
// asks of the garbage collector is given back when ctx ends.
func loadCmd(ctx context.Context, src Source, o Options) tea.Cmd {
	return func() tea.Msg {
		opt := o.Read
		in := app.Source{Name: src.Name, Path: src.Path}
		switch {
		case src.Data != nil:
			in.Reader = bytes.NewReader(src.Data)
		case src.Stdin != nil:
			in.Reader = src.Stdin
		}
		var size int64
		if src.Path != "" && in.Reader == nil {
			if info, err := os.Stat(src.Path); err == nil {
				size = info.Size()
				if size >= textsOnDemandBytes {
					holdMemory(ctx, memory.Limit(sessionLimit(memory.Live(), size)))
				} else {
					holdPace(ctx, size)
				}
			}
		}
		fromFile := in.Reader == nil && !opt.SizesOnly
		var done, total atomic.Int64
		var phase atomic.Value
		phase.Store("reading")
		progress := func(d, t int64) {
			done.Store(d)
			total.Store(t)
		}
		msgs := make(chan tea.Msg, 3)
		crash.Go(func() {
			if fromFile && size >= headFirstBytes {
				if msg, err := readHead(src, o); err == nil && msg.session != nil {
					msgs <- msg
				}
			}
			onDemand := in.Reader == nil && size >= textsOnDemandBytes
			if fromFile && size >= rowsFirstBytes && !onDemand {
				if msg, err := readRows(src, o, progress); err == nil { // else the full read says what is wrong
					msgs <- msg
					phase.Store("reading texts")
				}
			}
			done.Store(0)
			var msg loadedMsg
			if onDemand {
				s, texts, err := app.Options{Read: opt}.LoadTexts(src.Path, progress)
				msg = loadedMsg{src: src.Path, session: s, texts: texts, err: err}
			} else {
				s, err := app.Options{Read: opt}.Load(in, progress)
				msg = loadedMsg{src: src.Path, session: s, err: err}
			}
			if msg.err == nil {
				full := opt
				full.SizesOnly = false
				msg.subs, msg.subErr = app.Options{Read: full}.LoadSubagents(msg.session, subagentsOf(src))
				if onDemand {
					msg.recorded = priceRecorded(msg.session, o.Prices)
				}
			}
			msgs <- msg
		})
		var wait tea.Cmd
		wait = func() tea.Msg {
			select {
			case msg := <-msgs:
				if rows, ok := msg.(rowsMsg); ok {
					rows.next = wait
					return rows
				}
				return msg
			case <-ctx.Done():
				return nil
			case <-time.After(100 * time.Millisecond):
				return progressMsg{phase: phase.Load().(string), done: done.Load(), total: total.Load(), next: wait}
			}
		}
		return wait()
	}
}

// headFirstBytes is the smallest file whose first headBytes are shown
// before the rest is read: below it the whole is read in about a frame.
// Tests lower them.
var (
	headFirstBytes int64 = 4 << 20
	headBytes      int64 = 1 << 20
)

// readHead reads src's first headBytes, to the end of the last line they
// hold, for their sizes alone, and prices their calls as recorded: the
// first calls of a large log, shown at once.
func readHead(src Source, o Options) (rowsMsg, error) {
	f, err := os.Open(src.Path)
	if err != nil {
		return rowsMsg{}, err
	}
	defer f.Close()
	buf := make([]byte, headBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return rowsMsg{}, err
	}
	buf = buf[:bytes.LastIndexByte(buf[:n], '\n')+1]
	read := o.Read
	read.SizesOnly = true
	s, err := transcript.Read(bytes.NewReader(buf), src.Name, read)
	if err != nil {
		return rowsMsg{}, err
	}
	return rowsMsg{src: src.Path, session: s, recorded: priceRecorded(s, o.Prices), partial: true}, nil
}

// subagentsOf are the logs of src's sub-agents: those the list found, or
// those beside its file.
func subagentsOf(src Source) []string {
	if src.Subagents != nil || src.Path == "" {
		return src.Subagents
	}
	in, err := app.Resolve([]string{src.Path}, app.SystemEnv())
	if err != nil || len(in) != 1 || in[0].Err != nil {
		return nil
	}
	return in[0].Subagents
}

// subsReadMsg carries the logs of the sub-agents of the followed file at
// path; same: they are as they were when last read (sig), and were not
// read again.
type subsReadMsg struct {
	path string
	subs []*transcript.Session
	err  error
	sig  string
	same bool
	took time.Duration
}

// subsTickMsg asks the screen following path to look at its sub-agents'
// logs again: a sub-agent writes its log while its parent's waits.
type subsTickMsg struct{ path string }

// subsEvery is how often a followed session's sub-agents are looked at;
// 0 only when the parent changes (tests). A look that read them waits
// subsPace times what the reading took before the next.
var (
	subsEvery = 2 * time.Second
	subsPace  = 10
)

// readSubsCmd reads the logs of the sub-agents of src, followed: each in
// full, reconciled with one another (the followed session is the
// follower's, not to be changed here), unless none has changed since they
// were read as sig (their names, sizes and times). Those named in src and
// those found beside its file now are read: a session's sub-agents start
// while it runs.
func readSubsCmd(src Source, read transcript.Options, sig string) tea.Cmd {
	return func() tea.Msg {
		paths := subagentsOf(src)
		if src.Subagents != nil {
			paths = slices.Clone(paths)
			for _, p := range subagentsOf(Source{Path: src.Path}) {
				if !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
		}
		var b strings.Builder
		for _, p := range paths {
			info, err := os.Stat(p)
			if err == nil {
				fmt.Fprintf(&b, "%q %d %d\n", p, info.Size(), info.ModTime().UnixNano())
			}
		}
		if b.String() == sig {
			return subsReadMsg{path: src.Path, sig: sig, same: true}
		}
		start := time.Now()
		var subs []*transcript.Session
		var errs []error
		for _, p := range paths {
			s, err := transcript.ReadFile(p, read)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			subs = append(subs, s)
		}
		transcript.Reconcile(subs)
		return subsReadMsg{path: src.Path, subs: subs, err: errors.Join(errs...), sig: b.String(), took: time.Since(start)}
	}
}

// holdMemory gives d back when ctx ends.
func holdMemory(ctx context.Context, d *memory.Demand) { context.AfterFunc(ctx, d.Release) }

// holdPace asks, until ctx ends, for the pace of garbage collection a
// session of size bytes held whole needs.
func holdPace(ctx context.Context, size int64) {
	if p := sessionPace(size); p > 0 {
		holdMemory(ctx, memory.Pace(p))
	}
}

// readRows reads src's file for its sizes alone and prices its calls as
// recorded.
func readRows(src Source, o Options, progress func(done, total int64)) (rowsMsg, error) {
	read := o.Read
	read.SizesOnly = true
	s, err := app.Options{Read: read}.Load(app.Source{Name: src.Name, Path: src.Path}, progress)
	if err != nil {
		return rowsMsg{}, err
	}
	return rowsMsg{src: src.Path, session: s, recorded: priceRecorded(s, o.Prices)}, nil
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
// about as long as a frame; from textsOnDemandBytes the one read is as
// quick. Tests lower it.
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

// prepareCmd counts the session's results, then each of its sub-agents',
// until ctx ends, reporting progress; texts, when not nil, reads those the
// session was read without.
func prepareCmd(ctx context.Context, seq int, s *transcript.Session, subs []*transcript.Session, texts replay.TextSource, opt Options) tea.Cmd {
	return func() tea.Msg {
		var done, total atomic.Int64
		out := make(chan preparedMsg, 1)
		crash.Go(func() {
			progress := func(d, t int) {
				done.Store(int64(d))
				total.Store(int64(t))
			}
			p, err := prepareTexts(ctx, opt.pipeline(), s, progress, texts)
			msg := preparedMsg{seq: seq, prep: p, err: err}
			if err == nil {
				p.CostParts() // split here, so that no Update waits for it
				msg.realized = realized(opt.Ledger, s.ID)
			}
			for _, sub := range subs {
				if msg.err != nil {
					break
				}
				q, err := prepareTexts(ctx, opt.pipeline(), sub, progress, nil)
				if err == nil {
					q.CostParts()
				}
				msg.subs, msg.err = append(msg.subs, q), err
			}
			out <- msg
		})
		return awaitWithProgress(out, "counting tokens", func() (int64, int64) { return done.Load(), total.Load() })()
	}
}

// prepareTexts is app.Options.PrepareTexts; tests stand in for it.
var prepareTexts = func(ctx context.Context, o app.Options, s *transcript.Session, progress replay.Progress, texts replay.TextSource) (*replay.Prepared, error) {
	return o.PrepareTexts(ctx, s, progress, texts)
}

// replayCmd replays the prepared logs, the session's own first, under
// policy, planning their spill files: they are written when needed
// (spills.go), not at every replay.
func replayCmd(seq int, preps []*replay.Prepared, pol policy.Policy, opt Options) tea.Cmd {
	return func() tea.Msg {
		msg := replayedMsg{seq: seq}
		for i, p := range preps {
			rp, spills, err := opt.pipeline().ReplayPlanned(p, pol)
			if err != nil {
				return replayedMsg{seq: seq, err: err}
			}
			if i == 0 {
				msg.replay, msg.spills = rp, spills
				continue
			}
			msg.subs, msg.subSpills = append(msg.subs, rp), append(msg.subSpills, spills)
		}
		return msg
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
			holdPace(ctx, info.Size())
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

// searchCmd finds the calls, of every log shown, whose text, tool names,
// inputs or results contain query, ignoring case.
func searchCmd(parts []logPart, query string) tea.Cmd {
	return func() tea.Msg {
		q := strings.ToLower(query)
		var calls []int
		has := func(text string) bool { return strings.Contains(strings.ToLower(text), q) }
		for _, p := range parts {
			if p.session == nil {
				continue
			}
			text := func(r *transcript.ToolResult) string { return r.Text }
			if p.prep != nil {
				text = p.prep.Text
			}
			for i := range p.session.Calls {
				c := &p.session.Calls[i]
				found := has(c.Text)
				for _, tc := range c.ToolCalls {
					found = found || has(tc.Name) || has(string(tc.Input))
				}
				for j := range c.Results {
					r := &c.Results[j]
					found = found || has(r.Tool) || has(text(r))
				}
				if found {
					calls = append(calls, p.first+i)
				}
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

// The messages of the session screen's commands, which the root delivers
// to the screen that sent for them and to no other.
func (progressMsg) fromSession()       {}
func (rowsMsg) fromSession()           {}
func (loadedMsg) fromSession()         {}
func (textReadMsg) fromSession()       {}
func (preparedMsg) fromSession()       {}
func (replayedMsg) fromSession()       {}
func (followMsg) fromSession()         {}
func (followEndedMsg) fromSession()    {}
func (followStartedMsg) fromSession()  {}
func (searchedMsg) fromSession()       {}
func (agentFileMsg) fromSession()      {}
func (chartDueMsg) fromSession()       {}
func (sweptMsg) fromSession()          {}
func (hazardsIndexedMsg) fromSession() {}
func (spillsWrittenMsg) fromSession()  {}
func (pagerReadyMsg) fromSession()     {}
func (subsReadMsg) fromSession()       {}
func (subsTickMsg) fromSession()       {}

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

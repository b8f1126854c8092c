package sessions

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/crash"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/transcript"
)

// NewIndexed lists the sessions of paths through the session index
// ix: reopening the same logs takes their rows from its cache, and a
// rescan reads only the logs that changed (a session being written, only
// what was appended). Replays are Service', which hold the sessions
// read in full between policies.
func NewIndexed(paths []string, env app.Env, opt app.Options, ix *index.Index) *Service {
	return &Service{Paths: paths, Env: env, Options: opt, Index: ix}
}

// Scan lists the sessions through a.Index: the paths are resolved again
// unless a watch runs and saw no file or folder appear, go or move, and
// the index reads again only the logs that changed. The first takes the
// scan ScanAhead began, if one did.
func (a *Service) Scan(ctx context.Context, progress func(done, total int)) ([]Row, []string, error) {
	a.mu.Lock()
	early := a.early
	a.early = nil
	a.mu.Unlock()
	if early == nil {
		return a.scan(ctx, progress)
	}
	early.follow(progress)
	select {
	case <-early.done:
	case <-ctx.Done():
	}
	if err := ctx.Err(); err != nil {
		early.cancel()
		<-early.done
		return nil, nil, err
	}
	return early.rows, early.warnings, early.err
}

// ScanAhead begins the first Scan now, in the background, for a caller
// that asks for it once its front end has started: the inspector took
// 10-100 ms to start, which a list reopened from the index's cache waited
// for before its scan began (its rows and totals come in 0.3-0.5 s). stop
// ends the scan if no Scan took it.
func (a *Service) ScanAhead() (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	early := &earlyScan{cancel: cancel, done: make(chan struct{})}
	a.mu.Lock()
	a.early = early
	a.mu.Unlock()
	crash.Go(func() {
		defer close(early.done)
		early.rows, early.warnings, early.err = a.scan(ctx, early.report)
	})
	return func() {
		a.mu.Lock()
		untaken := a.early == early
		if untaken {
			a.early = nil
		}
		a.mu.Unlock()
		if untaken {
			cancel()
			<-early.done
		}
	}
}

// earlyScan is a scan ScanAhead began.
type earlyScan struct {
	cancel   context.CancelFunc
	done     chan struct{} // closed once rows, warnings and err are set
	rows     []Row
	warnings []string
	err      error

	mu            sync.Mutex
	progress      func(done, total int)
	doneN, totalN int
}

// report tells the progress of the scan to the Scan that took it, and
// keeps it for one that takes it later. progress is called under e.mu, as
// in follow: one call at a time, in order, as a scan of its own calls it.
func (e *earlyScan) report(done, total int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.doneN, e.totalN = done, total
	if e.progress != nil {
		e.progress(done, total)
	}
}

// follow hands progress what the scan reported so far, then the rest.
func (e *earlyScan) follow(progress func(done, total int)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progress = progress
	if progress != nil && e.totalN > 0 {
		progress(e.doneN, e.totalN)
	}
}

func (a *Service) scan(ctx context.Context, progress func(done, total int)) ([]Row, []string, error) {
	a.mu.Lock()
	resolved, given := a.resolved, a.Resolved
	a.Resolved = nil
	if given != nil {
		a.resolved, resolved = given, given
	}
	a.mu.Unlock()
	relist := a.relist.Swap(false) || a.watching.Load() == 0 || resolved == nil
	changed := a.sinceLastScan(relist)
	if relist && given == nil {
		var err error
		if resolved, err = app.Resolve(a.Paths, a.Env); err != nil {
			a.relist.Store(true)
			return nil, nil, err
		}
		a.mu.Lock()
		a.resolved = resolved
		a.mu.Unlock()
	}
	var warnings []string
	var inputs []app.Input
	for _, in := range resolved {
		switch {
		case in.Err != nil:
			warnings = append(warnings, in.Err.Error())
		case in.Path == "-":
			warnings = append(warnings, "standard input cannot be listed with other sessions; open it alone")
		default:
			inputs = append(inputs, in)
		}
	}
	entries, iw, err := a.Index.ScanChanged(ctx, inputs, changed, progress)
	for _, w := range iw {
		if !errors.Is(w.Err, context.Canceled) {
			warnings = append(warnings, w.Err.Error())
		}
	}
	if err != nil {
		a.relist.Store(true) // the logs written meanwhile were not all looked at
		return nil, warnings, err
	}
	rows := make([]Row, len(entries))
	var live []app.Input
	liveAt := map[string]int{}
	a.mu.Lock()
	if a.seen == nil {
		a.seen, a.held = map[string]scanned{}, map[string]*app.Session{}
	}
	listed := map[string]bool{}
	now := time.Now()
	if a.Now != nil {
		now = a.Now()
	}
	for i := range entries {
		e := &entries[i]
		rows[i] = entryRow(e)
		listed[e.Path] = true
		sc := scanned{stamp: entryStamp(e), input: app.Input{Path: e.Path, Subagents: e.Subagents}, row: rows[i], size: e.Bytes}
		prev, ok := a.seen[e.Path]
		same := ok && prev.stamp == sc.stamp && prev.copied == e.CopiedCalls && sameCost(prev.row.Cost, rows[i].Cost)
		switch {
		case e.CopiedCalls == 0:
			// None of its calls is a copy counted elsewhere: read alone,
			// it replays as read with the others.
			sc.marks = map[string]*transcript.Session{}
		case same:
			sc.marks = prev.marks // nil until a replay marks its copies (markCopies)
		}
		sc.copied, sc.groups, sc.rank = e.CopiedCalls, e.Groups, i
		if !same {
			a.drop(e.Path)
		}
		a.seen[e.Path] = sc
		if now.Sub(e.Modified) < LiveWindow {
			if lf, ok := a.liveRows[e.Path]; ok && lf.stamp == sc.stamp {
				rows[i].Burn, rows[i].Context, rows[i].ContextMax = lf.row.Burn, lf.row.Context, lf.row.ContextMax
			} else {
				liveAt[e.Path] = i
				live = append(live, sc.input)
			}
		}
	}
	for path := range a.seen {
		if !listed[path] {
			a.drop(path)
			delete(a.seen, path)
			delete(a.liveRows, path)
		}
	}
	a.mu.Unlock()
	if len(live) > 0 {
		a.liveFigures(ctx, live, func(r Row) {
			i := liveAt[r.Path]
			rows[i].Burn, rows[i].Context, rows[i].ContextMax = r.Burn, r.Context, r.ContextMax
			a.mu.Lock()
			if a.liveRows == nil {
				a.liveRows = map[string]scanned{}
			}
			a.liveRows[r.Path] = scanned{stamp: a.seen[r.Path].stamp, row: rows[i]}
			a.mu.Unlock()
		})
	}
	return rows, warnings, ctx.Err()
}

// liveFigures reads the sessions being written (a few, most often one)
// for what the index does not keep: the burn rate and the last prompt.
// Read apart from the others, a copied response may count in a burn rate
// twice; the list's costs are the index's.
func (a *Service) liveFigures(ctx context.Context, inputs []app.Input, set func(Row)) {
	opt := a.Options
	opt.Read.SizesOnly = true
	opt.Counter = nil
	_, _ = app.Each(ctx, inputs, nil, opt, func(s *app.Session) (Row, error) {
		if err := ctx.Err(); err != nil {
			return Row{}, err
		}
		return sessionRow(s), nil
	}, func(r Row) error {
		set(r)
		return ctx.Err()
	}, nil)
}

// entryRow is the list's row of an index entry.
func entryRow(e *index.Entry) Row {
	row := Row{
		Path: e.Path, Agent: string(e.Format), Version: e.Version, Project: lastElement(e.Project),
		First: e.First, Last: e.Last, Models: e.Models, Calls: e.APICalls - e.CopiedCalls, Subagents: len(e.Subagents),
		Cost: e.CostUSD, LargestResult: int64(e.LargestResult), Modified: e.Modified, Warnings: e.Warnings,
	}
	for _, p := range e.SubagentParts {
		row.Parts = append(row.Parts, Part{Path: p.Path, Calls: p.APICalls, Cost: p.CostUSD, LargestResult: int64(p.LargestResult)})
	}
	return row
}

// lastElement is the last element of a folder the agent ran in.
func lastElement(dir string) string {
	if dir == "" {
		return ""
	}
	dir = strings.TrimRight(strings.ReplaceAll(dir, `\`, "/"), "/")
	if i := strings.LastIndex(dir, "/"); i >= 0 && i < len(dir)-1 {
		return dir[i+1:]
	}
	return filepath.Base(dir)
}

// entryStamp identifies what an entry's logs held when scanned.
func entryStamp(e *index.Entry) string {
	return fmt.Sprintf("%d\x00%d\x00%d\x00%s", e.Modified.UnixNano(), e.Bytes, e.APICalls, strings.Join(e.Subagents, "\x00"))
}

func sameCost(a, b *float64) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

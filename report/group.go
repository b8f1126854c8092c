package report

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
	_ "time/tzdata" // zone names resolve where the system has no zone files

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// GroupKeys are the groupings --by takes.
var GroupKeys = []string{"session", "day", "week", "month", "project", "model"}

// Grouping says how a report groups the calls of many sessions and which
// calls it counts. The zero value groups nothing and counts every call.
type Grouping struct {
	// By is one of GroupKeys, or "" for no groups.
	By string
	// Zone dates the calls (days, weeks, months and the cut); nil is UTC.
	Zone *time.Location
	// ZoneName is how the report names Zone.
	ZoneName string
	// Since and Until bound the calls counted: at or after Since, before
	// Until; a zero bound is open. A call without a time is counted only
	// when both are open.
	Since, Until time.Time
	// Calls keeps each session's calls and results in the report beside
	// the groups.
	Calls bool
	// Width is what the text tables are fitted to, in cells; 0 is
	// DefaultWidth.
	Width int
}

// Cut tells whether the grouping leaves calls out by their time.
func (g Grouping) Cut() bool { return !g.Since.IsZero() || !g.Until.IsZero() }

// counts tells whether a call at t (nil: no time recorded) is counted.
func (g Grouping) counts(t *time.Time) bool {
	if t == nil {
		return !g.Cut()
	}
	return (g.Since.IsZero() || !t.Before(g.Since)) && (g.Until.IsZero() || t.Before(g.Until))
}

func (g Grouping) zone() *time.Location {
	if g.Zone == nil {
		return time.UTC
	}
	return g.Zone
}

// ParseZone reads a -z/--timezone value: an IANA zone name, "UTC", or ""
// for this machine's zone. The name returned is what the report prints.
func ParseZone(name string) (*time.Location, string, error) {
	if name == "" || strings.EqualFold(name, "local") {
		return time.Local, localZoneName(), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, "", fmt.Errorf("unknown time zone %q (want an IANA name such as UTC or Europe/Berlin)", name)
	}
	return loc, loc.String(), nil
}

// localZoneName names this machine's zone: $TZ, else the zone file
// /etc/localtime links to, else "local".
func localZoneName() string {
	if tz := os.Getenv("TZ"); tz != "" {
		name := strings.TrimPrefix(tz, ":")
		if _, err := time.LoadLocation(name); err == nil {
			return name
		}
		if info, err := os.Stat(name); err == nil && info.Mode().IsRegular() { // a zone file by its path
			if _, zone, ok := strings.Cut(name, "zoneinfo/"); ok {
				return zone
			}
			return name
		}
		return "UTC" // a TZ Go cannot load (a POSIX rule): its clock is UTC's
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, name, ok := strings.Cut(target, "zoneinfo/"); ok {
			return name
		}
	}
	if name := time.Local.String(); name != "Local" {
		return name
	}
	return "local"
}

// ParseBound reads a --since or --until value in zone: a date (YYYY-MM-DD
// or YYYYMMDD, a whole day, so that --until includes it) or an RFC 3339
// instant. It returns the half-open bound: for since the first instant
// counted, for until the first instant no longer counted.
func ParseBound(s string, zone *time.Location, until bool) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, "20060102"} {
		if day, err := time.Parse(layout, s); err == nil { // a date, not yet an instant
			if until {
				day = day.AddDate(0, 0, 1)
			}
			y, m, d := day.Date()
			return dayStart(y, m, d, zone), nil
		}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date (YYYY-MM-DD) nor an RFC 3339 time (2026-05-04T09:30:00Z)", s)
	}
	if until {
		t = t.Add(time.Nanosecond)
	}
	return t, nil
}

// dayStart is the first instant of the day y-m-d in zone: its midnight,
// or, where the clocks change at midnight (America/Santiago) or skip the
// day (Pacific/Apia, 2011-12-30), the change. time.Date puts a midnight
// that does not exist on either side of the change.
func dayStart(y int, m time.Month, d int, zone *time.Location) time.Time {
	t := time.Date(y, m, d, 0, 0, 0, 0, zone)
	ty, tm, td := t.Date()
	switch c := cmp.Compare(ty*10000+int(tm)*100+td, y*10000+int(m)*100+d); {
	case c < 0: // the day before: the day begins where its clock ends
		_, end := t.ZoneBounds()
		return end
	case c > 0: // past the day: the day, if any, began at the change
		start, _ := t.ZoneBounds()
		return start
	}
	return t
}

// Group is one row of a grouped report: what the calls of one key (a
// day, a project, a model, ...) recorded and cost.
type Group struct {
	Key string `json:"key"`
	// Sessions counts the sessions with a call in the group.
	Sessions int    `json:"sessions"`
	APICalls int    `json:"api_calls"`
	Recorded Tokens `json:"recorded"`
	// CostUSD is null when some usage of the group has no price, or a
	// session of its calls recorded none; never a partial sum. A group of
	// no call costs 0.
	CostUSD      *float64 `json:"cost_usd"`
	CostUSDAfter *float64 `json:"cost_usd_after"`

	sum  groupSum
	last time.Time // of the group's latest call
	// session names a by-session group's session for the text table.
	session *sessionInfo
}

// sessionInfo is what tells a session apart in the by-session table.
type sessionInfo struct {
	id, project, agent string
	models             []string
}

// groupSum is what a group's costs are decided from.
type groupSum struct {
	usage        int // calls and extra usage with recorded tokens
	priced       float64
	pricedAfter  float64
	afterUnknown bool
	unpriced     map[string]bool
	// copies counts usage recorded here but counted in the log it was
	// copied from: a group of copies alone costs nothing, not unknown.
	copies int
	// noUsage counts the calls of sessions whose logs record no usage at
	// all: what they cost is unknown, so the group's cost is too.
	noUsage int
}

// add counts usage on model: rec nil when the log records none.
func (g *Group) add(model string, rec *Tokens, cost, after *float64) {
	if rec == nil {
		return
	}
	g.sum.usage++
	g.Recorded.Input += rec.Input
	g.Recorded.CacheCreation += rec.CacheCreation
	g.Recorded.CacheRead += rec.CacheRead
	g.Recorded.Output += rec.Output
	if cost == nil {
		if g.sum.unpriced == nil {
			g.sum.unpriced = map[string]bool{}
		}
		g.sum.unpriced[model] = true
		return
	}
	g.sum.priced += *cost
	if after == nil {
		g.sum.afterUnknown = true
	} else {
		g.sum.pricedAfter += *after
	}
}

// merge adds o, a part of the same key, to g.
func (g *Group) merge(o *Group) {
	if o.last.After(g.last) {
		g.last = o.last
	}
	if g.session == nil {
		g.session = o.session
	}
	g.Sessions += o.Sessions
	g.APICalls += o.APICalls
	g.Recorded.Input += o.Recorded.Input
	g.Recorded.CacheCreation += o.Recorded.CacheCreation
	g.Recorded.CacheRead += o.Recorded.CacheRead
	g.Recorded.Output += o.Recorded.Output
	g.sum.usage += o.sum.usage
	g.sum.priced += o.sum.priced
	g.sum.pricedAfter += o.sum.pricedAfter
	g.sum.copies += o.sum.copies
	g.sum.noUsage += o.sum.noUsage
	g.sum.afterUnknown = g.sum.afterUnknown || o.sum.afterUnknown
	for m := range o.sum.unpriced {
		if g.sum.unpriced == nil {
			g.sum.unpriced = map[string]bool{}
		}
		g.sum.unpriced[m] = true
	}
}

// settle sets the costs from the sums.
func (g *Group) settle() {
	g.CostUSD, g.CostUSDAfter = nil, nil
	if len(g.sum.unpriced) > 0 || g.sum.noUsage > 0 {
		return
	}
	usd := g.sum.priced
	g.CostUSD = &usd
	if !g.sum.afterUnknown {
		after := g.sum.pricedAfter
		g.CostUSDAfter = &after
	}
}

// Unpriced lists the models of the group's usage that have no price.
func (g *Group) Unpriced() []string { return sortedKeys(g.sum.unpriced) }

// NoUsage counts the group's calls from sessions whose logs record no
// usage at all.
func (g *Group) NoUsage() int { return g.sum.noUsage }

// Groups is a grouped report: its rows and their total.
type Groups struct {
	By   string `json:"by"`
	Zone string `json:"zone"`
	// Since and Until are the cut, in Zone; null when open. Until is the
	// first instant no longer counted.
	Since  *string `json:"since"`
	Until  *string `json:"until"`
	Groups []Group `json:"groups"`
	Total  Group   `json:"total"`
	// Policy names the policy the after figures are under; "" for none.
	Policy string `json:"-"`
	// Untimed counts the calls the cut left out because their log gives
	// them no time.
	Untimed int `json:"untimed_calls_left_out,omitempty"`
	// Warnings counts what reading the sessions' logs warned of (lines
	// that could not be read, usage that is no count), over WarnedSessions
	// of them: what those lines held is in no figure.
	Warnings       int `json:"warnings,omitempty"`
	WarnedSessions int `json:"sessions_with_warnings,omitempty"`

	loc *time.Location // the zone
}

// grouper sums sessions into groups as they come, in order.
type grouper struct {
	g     Grouping
	keys  map[string]*Group
	order []string
	total Group
	// untimed counts the calls without a time the cut left out.
	untimed int
	// warnings are the sessions' warnings, over warned sessions.
	warnings, warned int
}

func newGrouper(g Grouping) *grouper {
	return &grouper{g: g, keys: map[string]*Group{}, total: Group{Key: "total"}}
}

// part is one session's share of the groups.
type part struct {
	keys     map[string]*Group
	order    []string
	total    Group
	any      bool // the session is in the report: no cut, or a call in it
	untimed  int  // calls the cut left out for want of a time
	warnings int  // the reader's, of the session and its sub-agents
}

func (p *part) group(key string) *Group {
	g := p.keys[key]
	if g == nil {
		g = &Group{Key: key, Sessions: 1}
		p.keys[key] = g
		p.order = append(p.order, key)
	}
	return g
}

// split sums the counted calls of s and its sub-agents by key. It reads
// only s; many sessions may be split at once.
func (gr *grouper) split(s *Session) *part {
	// The reader's warnings: lines or usage not counted (a replay's, a
	// spill file not written, leave the recorded figures whole).
	p := &part{keys: map[string]*Group{}, total: Group{Sessions: 1}, warnings: s.tally.Warnings}
	zone := gr.g.zone()
	fixed := ""
	switch gr.g.By {
	case "session":
		fixed = s.Path
		info := &sessionInfo{id: s.SessionID, project: projectOf(s), agent: agentOf(s), models: s.Models}
		if !gr.g.Cut() {
			p.group(fixed).session = info // a session without calls is still a row
		}
		defer func() {
			if g := p.keys[fixed]; g != nil {
				g.session = info
			}
		}()
	case "project":
		fixed = projectOf(s)
		if !gr.g.Cut() {
			p.group(fixed) // a session without calls still has its project
		}
	}
	// A session whose logs record no usage at all has an unknown cost, and
	// so has every group with a call of it; calls without usage in a
	// session that records some are not billed, as ccusage counts them.
	noUsage := s.Totals.CostUSD == nil && len(s.Totals.UnpricedModels) == 0
	for _, part := range append([]*Session{s}, s.Subagents...) {
		for i := range part.Calls {
			c := &part.Calls[i]
			if c.CountedIn != nil {
				// Counted where it was copied from; a session's or
				// project's row of copies alone costs nothing.
				if g := p.keys[fixed]; g != nil && (gr.g.By == "session" || gr.g.By == "project") && c.Recorded != nil && gr.g.counts(c.Time) {
					g.sum.copies++
					p.total.sum.copies++
				}
				continue
			}
			if !gr.g.counts(c.Time) {
				if c.Time == nil {
					p.untimed++
				}
				continue
			}
			p.any = true
			p.total.APICalls++
			if noUsage {
				p.total.sum.noUsage++
			}
			p.total.add(c.Model, c.Recorded, c.CostUSD, c.CostUSDAfter)
			for _, x := range c.Extra {
				p.total.add(x.Model, &x.Recorded, x.CostUSD, extraAfter(part, x))
			}
			key := fixed
			switch gr.g.By {
			case "day", "week", "month":
				key = dateKey(c.Time, zone, gr.g.By)
			case "model":
				g := p.group(c.Model)
				g.APICalls++
				if noUsage {
					g.sum.noUsage++
				}
				g.add(c.Model, c.Recorded, c.CostUSD, c.CostUSDAfter)
				for _, x := range c.Extra {
					g := p.group(x.Model)
					g.APICalls++
					g.add(x.Model, &x.Recorded, x.CostUSD, extraAfter(part, x))
				}
				continue
			}
			g := p.group(key)
			if c.Time != nil && c.Time.After(g.last) {
				g.last = *c.Time
			}
			g.APICalls++
			if noUsage {
				g.sum.noUsage++
			}
			g.add(c.Model, c.Recorded, c.CostUSD, c.CostUSDAfter)
			for _, x := range c.Extra {
				g.add(x.Model, &x.Recorded, x.CostUSD, extraAfter(part, x))
			}
		}
	}
	if !gr.g.Cut() {
		p.any = true // every session read is in the report
	}
	return p
}

// extraAfter is what a call's usage on another model costs under s's
// policy: what it cost, for no policy shapes it; unknown without a
// policy, which has no after.
func extraAfter(s *Session, x ExtraUsage) *float64 {
	if s.Policy.Inert() {
		return nil
	}
	return x.CostUSD
}

// add merges a session's part, in the order sessions are reported.
func (gr *grouper) add(p *part) {
	gr.untimed += p.untimed
	if p.warnings > 0 { // its lines may have held calls of the report's
		gr.warnings += p.warnings
		gr.warned++
	}
	if !p.any {
		return
	}
	gr.total.merge(&p.total)
	for _, k := range p.order {
		g := gr.keys[k]
		if g == nil {
			g = &Group{Key: k}
			gr.keys[k] = g
			gr.order = append(gr.order, k)
		}
		g.merge(p.keys[k])
	}
}

// result is the groups in report order: sessions by their last call,
// newest first; days, weeks and months in time order; projects and models
// by name.
func (gr *grouper) result() *Groups {
	out := &Groups{By: gr.g.By, Zone: gr.g.ZoneName, Groups: make([]Group, 0, len(gr.order)), loc: gr.g.zone()}
	bound := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		s := t.In(gr.g.zone()).Format(time.RFC3339Nano)
		return &s
	}
	out.Since, out.Until = bound(gr.g.Since), bound(gr.g.Until)
	keys := append([]string(nil), gr.order...)
	sort.Strings(keys)
	if gr.g.By == "session" {
		sort.SliceStable(keys, func(i, j int) bool { return gr.keys[keys[i]].last.After(gr.keys[keys[j]].last) })
	}
	for _, k := range keys {
		g := *gr.keys[k]
		g.settle()
		out.Groups = append(out.Groups, g)
	}
	out.Total = gr.total
	out.Total.settle()
	out.Untimed = gr.untimed
	out.Warnings, out.WarnedSessions = gr.warnings, gr.warned
	return out
}

// dateKey is the day (YYYY-MM-DD), week (the date of its Sunday, as
// ccusage weeks start) or month (YYYY-MM) of t in zone; "" without a time.
func dateKey(t *time.Time, zone *time.Location, by string) string {
	if t == nil {
		return ""
	}
	local := t.In(zone)
	switch by {
	case "week":
		// The Sunday that begins the week, by the calendar alone: its
		// midnight may not exist in zone.
		y, m, d := local.Date()
		return time.Date(y, m, d-int(local.Weekday()), 12, 0, 0, 0, time.UTC).Format(time.DateOnly)
	case "month":
		return local.Format("2006-01")
	}
	return local.Format(time.DateOnly)
}

// agentOf names the agent that wrote a session and its version, as the
// inspector's list does: "claude 2.1.126", "codex 0.144.1".
func agentOf(s *Session) string {
	name := strings.TrimSuffix(s.Format, "-code")
	if s.Version != "" {
		name += " " + s.Version
	}
	return name
}

// projectOf is the project a session worked in, as transcript.Project
// names it from the log's start.
func projectOf(s *Session) string {
	if s.stdin {
		return transcript.Project("", s.cwd) // its path names no file
	}
	cwd := ""
	if f, _, err := safefile.OpenRegular(s.Path, nil); err == nil {
		cwd, _ = transcript.ReadCwd(f) // unreadable: the folder alone names it
		f.Close()
	}
	return transcript.Project(s.Path, cwd)
}

// settled is g as a report of n sessions in format takes it: with By
// empty, a cut, or several sessions in text, group by session; else no
// groups, every call shown.
func (g Grouping) settled(format string, n int) Grouping {
	if g.By == "" && (g.Cut() || (format == "text" || format == "") && n > 1) {
		g.By = "session"
	}
	if g.By == "" {
		g.Calls = true
	}
	return g
}

// CheckFormat tells whether a report grouped as g can be written in
// format, before any session is read.
func (g Grouping) CheckFormat(format string) error {
	_, err := newGroupWriter(format, io.Discard, "", g.settled(format, 1))
	return err
}

// GroupWriter writes a report whose sessions are followed by their groups.
type GroupWriter interface {
	Writer
	// Groups writes the groups, after the last session and before End.
	Groups(*Groups) error
}

// errNoGroups is for a format that has no grouped shape.
var errNoGroups = errors.New("--by, --since and --until need --format text, json or csv")

// groupDone is a session as GenerateGroups rendered and split it.
type groupDone struct {
	data []byte
	part *part
	// input is the session's path, as its input names it.
	input string
}

// HeldBytes is about what d holds, for app.Each to bound what it keeps
// of many sessions: its rendering and a few hundred bytes a group.
func (d groupDone) HeldBytes() int64 {
	n := int64(len(d.data))
	if d.part != nil {
		n += 320 * int64(1+len(d.part.order))
	}
	return n
}

// GenerateGroups reports the sessions of inputs as Generate does, and sums
// their calls into groups as each session is reported, so that no more
// than a few sessions are held at once. With g.By empty and text output,
// several sessions are shown as a table of sessions (one session keeps
// its calls); with a cut, g.By empty groups by session.
func GenerateGroups(inputs []string, stdin io.Reader, opt Options, g Grouping, format string, out, errw io.Writer) (Problems, error) {
	resolved, err := app.Resolve(inputs, app.SystemEnv())
	if err != nil {
		return Problems{}, err
	}
	g = g.settled(format, len(resolved))
	w, err := newGroupWriter(format, out, opt.Prices.Source, g)
	if err != nil {
		return Problems{}, err
	}
	if err := w.Begin(); err != nil {
		return Problems{}, err
	}
	if opt.Policy.Inert() {
		opt.Read.SizesOnly = true
		opt.Counter = nil
	} else {
		opt.Read.SizesOnly = false
	}
	// Rendered calls are about their log, as by Generate; a row of the text
	// table of sessions is small whatever its log.
	_, calls := grouped(&g)
	opt.ResultsGrowWithLogs = calls && format != "text"
	gr := newGrouper(g)
	process := func(s *app.Session) (groupDone, error) {
		rs, err := session(s, opt)
		if err != nil {
			return groupDone{}, err
		}
		d := groupDone{input: s.Prepared.Session.Path}
		if g.By != "" {
			d.part = gr.split(rs)
			if !d.part.any {
				return d, nil // no call in the range: not in the report
			}
		}
		d.data, err = w.Render(rs)
		return d, err
	}
	emit := func(d groupDone) error {
		if d.part != nil {
			gr.add(d.part)
		}
		if len(d.data) == 0 {
			return nil
		}
		return w.Write(d.data)
	}
	p, err := eachKept(resolved, stdin, opt, groupKeeping(opt, g, format), process, emit, complainTo(errw))
	if err != nil {
		return p, err
	}
	if g.By != "" {
		res := gr.result()
		if !opt.Policy.Inert() {
			res.Policy = opt.Policy.Name
		}
		if err := w.Groups(res); err != nil {
			return p, err
		}
	}
	return p, w.End()
}

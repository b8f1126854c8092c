package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// newGroupWriter returns the writer of a grouped report in format.
func newGroupWriter(format string, w io.Writer, prices string, g Grouping) (GroupWriter, error) {
	switch format {
	case "text", "":
		return &textWriter{w: w, group: &g}, nil
	case "json":
		return &jsonWriter{w: w, prices: prices, group: &g}, nil
	case "csv":
		if g.By != "" && g.Calls {
			return nil, fmt.Errorf("--calls with --by has no CSV shape: CSV has one row per group (without --by, one per call)")
		}
		return &csvWriter{out: w, w: csv.NewWriter(w), group: &g}, nil
	}
	return nil, errNoGroups
}

// grouped tells whether a writer writes groups, and leaves the calls out.
func grouped(g *Grouping) (groups, calls bool) {
	if g == nil || g.By == "" {
		return false, true
	}
	return true, g.Calls
}

func (j *jsonWriter) Groups(g *Groups) error {
	j.groups = g
	return nil
}

func (c *csvWriter) Groups(g *Groups) error {
	for _, gr := range g.Groups {
		if err := c.w.Write(groupRow(g.By, &gr)); err != nil {
			return err
		}
	}
	c.w.Flush()
	return c.w.Error()
}

// groupHeader is the first row of a grouped CSV report.
var groupHeader = []string{"by", "key", "sessions", "api_calls", "input", "output", "cache_creation", "cache_read", "cost_usd", "cost_usd_after"}

func groupRow(by string, g *Group) []string {
	r := g.Recorded
	return []string{by, csvText(g.Key), strconv.Itoa(g.Sessions), strconv.Itoa(g.APICalls),
		itoa(r.Input), itoa(r.Output), itoa(r.CacheCreation), itoa(r.CacheRead), usd(g.CostUSD), usd(g.CostUSDAfter)}
}

// zone is the zone the text report's times are in, and its name.
func (t *textWriter) zone() (*time.Location, string) {
	if t.group == nil || t.group.Zone == nil || t.group.Zone == time.UTC {
		return time.UTC, "UTC"
	}
	return t.group.Zone, termtext.Escape(t.group.ZoneName)
}

func (t *textWriter) Groups(g *Groups) error {
	var b strings.Builder
	if t.n > 0 {
		b.WriteString("\n")
	}
	writeGroups(&b, g, t.group.Width)
	_, err := io.WriteString(t.w, b.String())
	return err
}

// keyNames heads the key column, per grouping.
var keyNames = map[string]string{"session": "session", "day": "day", "week": "week (from Sunday)", "month": "month", "project": "project", "model": "model"}

// writeGroups writes the text table of g in width cells: one row per
// group, then the total, then what the unknown costs lack.
func writeGroups(b *strings.Builder, g *Groups, width int) {
	active := g.Policy != ""
	t := g.Total
	head := fmt.Sprintf("by %s · %s, %s · times in %s", g.By, countOf(t.Sessions, "session"), countOf(t.APICalls, "API call"), termtext.Escape(g.Zone))
	var cut []string
	if g.Since != nil {
		cut = append(cut, "from "+boundText(*g.Since))
	}
	if g.Until != nil {
		cut = append(cut, untilText(*g.Until))
	}
	if cut != nil {
		head += " · calls " + strings.Join(cut, " ")
	}
	under := ""
	if g.By == "session" {
		under = commonDir(g.Groups)
		if under != "" {
			head += " · paths under " + termtext.Escape(under)
		}
	}
	if active {
		head += " · after " + termtext.Escape(g.Policy)
	}
	writeNote(b, head, width, "")
	rows := append(slices.Clip(g.Groups), t)
	last := len(rows) - 1
	figure := func(title string, priority int, cell func(g *Group) string) textColumn {
		return figureColumn(rows, title, priority, cell)
	}
	var cols []textColumn
	if g.By == "session" {
		cols = sessionColumns(g, under)
	} else {
		key := textColumn{title: keyNames[g.By], cells: cellsOf(rows, func(gr *Group) string { return groupKey(g.By, gr) })}
		key.cells[last] = "total"
		if g.By == "project" || g.By == "model" {
			key.elide, key.min = elideMid, 20
		}
		cols = append(cols, key, figure("sessions", 5, func(gr *Group) string { return human.Count(int64(gr.Sessions)) }))
	}
	cols = append(cols,
		figure("calls", 4, func(gr *Group) string { return human.Count(int64(gr.APICalls)) }),
		figure("input", 6, func(gr *Group) string { return human.Count(gr.Recorded.Input) }),
		figure("output", 7, func(gr *Group) string { return human.Count(gr.Recorded.Output) }),
		figure("cache write", 10, func(gr *Group) string { return human.Count(gr.Recorded.CacheCreation) }),
		figure("cache read", 9, func(gr *Group) string { return human.Count(gr.Recorded.CacheRead) }),
		figure("cost", 0, func(gr *Group) string { return human.USD(gr.CostUSD) }))
	if active {
		saved := func(gr *Group) *float64 {
			if gr.CostUSD == nil || gr.CostUSDAfter == nil {
				return nil
			}
			s := *gr.CostUSD - *gr.CostUSDAfter
			return &s
		}
		cols = append(cols,
			figure("after", 1, func(gr *Group) string { return human.USD(gr.CostUSDAfter) }),
			figure("saved", 2, func(gr *Group) string {
				if s := saved(gr); s != nil {
					return human.USD(s)
				}
				return "–"
			}),
			figure("share", 5, func(gr *Group) string {
				if s := saved(gr); s != nil && *gr.CostUSD > 0 {
					return fmt.Sprintf("%.1f%%", 100**s / *gr.CostUSD)
				}
				return "–"
			}))
	}
	writeColumns(b, cols, width, nil)
	for _, note := range groupNotes(g) {
		writeNote(b, note, width, tableIndent)
	}
	if active {
		writeNote(b, assumption, width, tableIndent)
	}
}

// groupNotes say what the unknown costs of g lack, and what the priced
// part of them costs, and what the cut left out.
func groupNotes(g *Groups) []string {
	var unpriced []string
	seen := map[string]bool{}
	for i := range g.Groups {
		for _, m := range g.Groups[i].Unpriced() {
			if !seen[m] {
				seen[m] = true
				unpriced = append(unpriced, m)
			}
		}
	}
	var why []string
	if len(unpriced) > 0 {
		why = append(why, "a model has no price: "+unpricedNames(unpriced))
	}
	if n := g.Total.NoUsage(); n > 0 {
		why = append(why, fmt.Sprintf("a log records no usage (%s)", countOf(n, "call")))
	}
	var notes []string
	if why != nil {
		notes = append(notes, fmt.Sprintf("cost unknown where %s; the priced calls cost %s", strings.Join(why, ", and where "), human.USD(&g.Total.sum.priced)))
	}
	if g.Untimed > 0 {
		notes = append(notes, fmt.Sprintf("%s left out: the log gives no time to cut by", human.Plural(g.Untimed, "call")))
	}
	if g.Warnings > 0 {
		notes = append(notes, fmt.Sprintf("%s in %s: what those lines held is not counted (spillway report on a session lists its own)",
			human.Plural(g.Warnings, "warning"), human.Plural(g.WarnedSessions, "session")))
	}
	return notes
}

// sessionColumns are the by-session table's columns that tell its
// sessions apart: the project, the session's id (as much of its start
// as tells it from the others), the time of its last call, the model,
// the agent and the file (under the folder they share). The total row
// has none of them.
func sessionColumns(g *Groups, under string) []textColumn {
	n := len(g.Groups)
	ids := make([]string, n)
	projects := make([]string, n)
	for i := range g.Groups {
		if info := g.Groups[i].session; info != nil {
			ids[i], projects[i] = info.id, info.project
		}
	}
	ids = shortIDs(ids, 8)
	projects = shortProjects(projects)
	files := sessionNames(g.Groups, under)
	col := func(title string, priority int, cell func(i int, gr *Group, info *sessionInfo) string) textColumn {
		c := textColumn{title: title, priority: priority, cells: make([]string, n+1)}
		for i := range g.Groups {
			gr := &g.Groups[i]
			info := gr.session
			if info == nil {
				info = &sessionInfo{}
			}
			c.cells[i] = cell(i, gr, info)
		}
		return c
	}
	project := col("project", 1, func(i int, _ *Group, _ *sessionInfo) string { return projects[i] })
	project.cells[n] = "total"
	project.elide, project.min = elideMid, 14
	session := col("session", 0, func(i int, _ *Group, _ *sessionInfo) string { return orDash(termtext.Escape(ids[i])) })
	lastCall := col("last call", 2, func(_ int, gr *Group, _ *sessionInfo) string {
		if gr.last.IsZero() {
			return "–"
		}
		return gr.last.In(g.loc).Format("2006-01-02 15:04")
	})
	model := col("model", 3, func(_ int, _ *Group, info *sessionInfo) string { return modelsCell(info.models) })
	model.elide, model.min = elideStart, 17
	agent := col("agent", 8, func(_ int, _ *Group, info *sessionInfo) string { return termtext.Escape(info.agent) })
	file := col("file", 11, func(i int, _ *Group, _ *sessionInfo) string { return files[i] })
	file.elide, file.min = elideMid, 24
	return []textColumn{project, session, lastCall, model, agent, file}
}

// modelsCell names a session's first model, "+N" for the others.
func modelsCell(models []string) string {
	if len(models) == 0 {
		return "–"
	}
	s := termtext.Escape(models[0])
	if len(models) > 1 {
		s += fmt.Sprintf(" +%d", len(models)-1)
	}
	return s
}

// shortIDs shortens each id to its first least bytes, or as many more as
// tell it from every other id (as short commit hashes are); ids equal in
// whole (a log and its sidechain's) are shortened alike.
func shortIDs(ids []string, least int) []string {
	// The longest prefix an id shares with another is the one it shares
	// with an id next to it in order: weighed against every other, the
	// ids of a report by session took time in the square of their number.
	sorted := slices.Compact(slices.Sorted(slices.Values(ids)))
	length := make(map[string]int, len(sorted))
	for k, id := range sorted {
		n := min(len(id), least)
		for _, j := range []int{k - 1, k + 1} {
			if j < 0 || j >= len(sorted) {
				continue
			}
			other := sorted[j]
			common := 0
			for common < len(id) && common < len(other) && id[common] == other[common] {
				common++
			}
			n = max(n, min(len(id), common+1))
		}
		length[id] = n
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id[:length[id]]
		if !utf8.ValidString(out[i]) {
			out[i] = id // cut inside a rune: no known agent writes such an id
		}
	}
	return out
}

// shortProjects names each project by the last element of its folder, or
// as many of its last elements as tell it from the others; escaped. The
// names are worked out once per folder, level by level: each project
// weighed against every other took 0.37 s for the 1,400 sessions of a
// fleet's report by session, and grew with their square.
func shortProjects(projects []string) []string {
	tail := func(p string, n int) string {
		// Windows folders too: a log keeps the cwd of the machine it ran on.
		parts := strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' })
		if n > len(parts) {
			return p
		}
		start := len(p)
		for range n {
			start = strings.LastIndexAny(strings.TrimRight(p[:start], `/\`), `/\`)
		}
		return strings.TrimRight(p[start+1:], `/\`)
	}
	var folders []string
	seen := map[string]bool{}
	for _, p := range projects {
		if p != "" && !seen[p] {
			seen[p] = true
			folders = append(folders, p)
		}
	}
	// A folder is named by its last n elements once no other folder's
	// last n are the same, or once they are the whole folder.
	name := make(map[string]string, len(folders))
	for n := 1; len(name) < len(folders); n++ {
		tails := make([]string, len(folders))
		count := make(map[string]int, len(folders))
		for i, p := range folders {
			tails[i] = tail(p, n)
			count[tails[i]]++
		}
		for i, p := range folders {
			if _, done := name[p]; !done && (count[tails[i]] == 1 || tails[i] == p) {
				name[p] = termtext.Escape(tails[i])
			}
		}
	}
	out := make([]string, len(projects))
	for i, p := range projects {
		if out[i] = name[p]; p == "" {
			out[i] = "–"
		}
	}
	return out
}

// sessionNames are the file column's cells: each path under the folder
// the sessions share, escaped.
func sessionNames(groups []Group, under string) []string {
	names := make([]string, len(groups))
	for i := range groups {
		name := groups[i].Key
		if under != "" {
			if rel, err := filepath.Rel(under, name); err == nil {
				name = rel
			}
		}
		names[i] = termtext.Escape(name)
	}
	return names
}

// elideMiddle shortens a safe string to width cells by putting "…" for
// its middle, keeping a third for its start (where it lies) and the rest
// for its end (the project's folder, the file's id).
func elideMiddle(s string, width int) string {
	if termtext.Width(s) <= width {
		return s
	}
	runes := []rune(s)
	headWidth := (width - 1) / 3
	tailWidth := width - 1 - headWidth
	var head, tail []rune
	for w := 0; len(head) < len(runes); {
		rw := termtext.Width(string(runes[len(head)]))
		if w+rw > headWidth {
			break
		}
		w += rw
		head = append(head, runes[len(head)])
	}
	for w, i := 0, len(runes)-1; i >= len(head); i-- {
		rw := termtext.Width(string(runes[i]))
		if w+rw > tailWidth {
			break
		}
		w += rw
		tail = append([]rune{runes[i]}, tail...)
	}
	return string(head) + "…" + string(tail)
}

// countOf is plural with thousands separators.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return human.Count(int64(n)) + " " + noun + "s"
}

// commonDir is the folder every session's file lies under, "" when
// there is none to leave out (no file, or only the root or ".").
func commonDir(groups []Group) string {
	var common []string
	for i, g := range groups {
		parts := strings.Split(filepath.Dir(g.Key), string(filepath.Separator))
		if i == 0 {
			common = parts
			continue
		}
		n := 0
		for n < len(common) && n < len(parts) && common[n] == parts[n] {
			n++
		}
		common = common[:n]
	}
	dir := strings.Join(common, string(filepath.Separator))
	if dir == "" || dir == "." || len(groups) == 0 {
		return ""
	}
	return dir
}

// boundText writes a bound of the cut as the zone reads it.
func boundText(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339Nano)
}

// untilText writes the cut's end: "before" the first instant left out,
// or, for an --until instant (which counts its own call, so ends a
// nanosecond later), "through" that instant as it was given.
func untilText(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err == nil && t.Nanosecond()%1000 == 1 {
		return "through " + t.Add(-time.Nanosecond).Format(time.RFC3339Nano)
	}
	return "before " + boundText(s)
}

// groupKey is a group's key as the text table shows it.
func groupKey(by string, g *Group) string {
	if g.Key != "" {
		return termtext.Escape(g.Key)
	}
	switch by {
	case "day", "week", "month":
		return "(no time)"
	case "model":
		return "(no model)"
	}
	return "(unknown)"
}

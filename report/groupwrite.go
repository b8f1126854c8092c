package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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

// sessionSummary is a session without its calls, results and events, as a
// grouped report without --calls lists it: the fields set here hide the
// session's own.
type sessionSummary struct {
	*Session
	Calls     *struct{}        `json:"calls,omitempty"`
	Results   *struct{}        `json:"results,omitempty"`
	Events    *struct{}        `json:"events,omitempty"`
	Subagents []sessionSummary `json:"subagents,omitempty"`
}

func summary(s *Session) sessionSummary {
	out := sessionSummary{Session: s}
	for _, sub := range s.Subagents {
		out.Subagents = append(out.Subagents, summary(sub))
	}
	return out
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
	writeGroups(&b, g)
	_, err := io.WriteString(t.w, b.String())
	return err
}

// keyNames heads the key column, per grouping.
var keyNames = map[string]string{"session": "session", "day": "day", "week": "week (from Sunday)", "month": "month", "project": "project", "model": "model"}

// writeGroups writes the text table of g: one row per group, then the
// total, then what the unknown costs lack.
func writeGroups(b *strings.Builder, g *Groups) {
	active := g.Policy != ""
	t := g.Total
	fmt.Fprintf(b, "by %s · %s, %s · times in %s", g.By, countOf(t.Sessions, "session"), countOf(t.APICalls, "API call"), termtext.Escape(g.Zone))
	var cut []string
	if g.Since != nil {
		cut = append(cut, "from "+boundText(*g.Since))
	}
	if g.Until != nil {
		cut = append(cut, untilText(*g.Until))
	}
	if cut != nil {
		fmt.Fprintf(b, " · calls %s", strings.Join(cut, " "))
	}
	under := ""
	if g.By == "session" {
		under = commonDir(g.Groups)
		if under != "" {
			fmt.Fprintf(b, " · paths under %s", termtext.Escape(under))
		}
	}
	if active {
		fmt.Fprintf(b, " · after %s", termtext.Escape(g.Policy))
	}
	b.WriteString("\n")
	head := []string{keyNames[g.By], "sessions", "calls", "input", "output", "cache write", "cache read", "cost"}
	if g.By == "session" {
		head[1] = "last call" // each row is one session
	}
	if active {
		head = append(head, "after", "saved", "share")
	}
	rows := [][]string{head}
	var names []string
	if g.By == "session" {
		names = sessionNames(g.Groups, under)
	}
	for i := range g.Groups {
		cells := groupCells(g.By, &g.Groups[i], active)
		if g.By == "session" {
			cells[0] = names[i]
			cells[1] = "–"
			if last := g.Groups[i].last; !last.IsZero() {
				cells[1] = last.In(g.loc).Format("2006-01-02 15:04")
			}
		}
		rows = append(rows, cells)
	}
	total := groupCells(g.By, &t, active)
	total[0] = "total"
	if g.By == "session" {
		total[1] = ""
	}
	rows = append(rows, total)
	writeTable(b, rows)
	var unpriced []string
	seen := map[string]bool{}
	noUsage := 0
	for i := range g.Groups {
		gr := &g.Groups[i]
		if gr.NoUsage() && gr.APICalls > 0 {
			noUsage++
		}
		for _, m := range gr.Unpriced() {
			if !seen[m] {
				seen[m] = true
				unpriced = append(unpriced, m)
			}
		}
	}
	if len(unpriced) > 0 {
		fmt.Fprintf(b, "  cost unknown where a model has no price: %s; the priced calls cost %s\n", unpricedNames(unpriced), human.USD(&t.sum.priced))
	}
	if noUsage > 0 {
		fmt.Fprintf(b, "  cost unknown for %s whose log records no usage\n", plural(noUsage, "group"))
	}
	if g.Untimed > 0 {
		fmt.Fprintf(b, "  %s left out: the log gives no time to cut by\n", plural(g.Untimed, "call"))
	}
	if active {
		fmt.Fprintf(b, "  %s\n", assumption)
	}
}

// sessionWidth bounds the by-session table's first column, so that a
// row of figures fits 120 columns: session files are often named by a
// long id under folders as long.
const sessionWidth = 32

// sessionNames are the first cells of the by-session table: each path
// under the folder the sessions share, escaped, its middle elided past
// sessionWidth; a name that would read as another's is kept whole.
func sessionNames(groups []Group, under string) []string {
	names := make([]string, len(groups))
	short := make([]string, len(groups))
	seen := map[string]int{}
	for i := range groups {
		name := groups[i].Key
		if under != "" {
			if rel, err := filepath.Rel(under, name); err == nil {
				name = rel
			}
		}
		names[i] = termtext.Escape(name)
		short[i] = elideMiddle(names[i], sessionWidth)
		seen[short[i]]++
	}
	for i := range names {
		if seen[short[i]] == 1 {
			names[i] = short[i]
		}
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

// groupCells are one group's cells of the text table.
func groupCells(by string, g *Group, active bool) []string {
	key := termtext.Escape(g.Key)
	if g.Key == "" {
		switch by {
		case "day", "week", "month":
			key = "(no time)"
		case "model":
			key = "(no model)"
		default:
			key = "(unknown)"
		}
	}
	r := g.Recorded
	cells := []string{key, human.Count(int64(g.Sessions)), human.Count(int64(g.APICalls)), human.Count(r.Input), human.Count(r.Output),
		human.Count(r.CacheCreation), human.Count(r.CacheRead), human.USD(g.CostUSD)}
	if active {
		saved, share := "–", "–"
		if g.CostUSD != nil && g.CostUSDAfter != nil {
			s := *g.CostUSD - *g.CostUSDAfter
			saved = human.USD(&s)
			if *g.CostUSD > 0 {
				share = fmt.Sprintf("%.1f%%", 100*s / *g.CostUSD)
			}
		}
		cells = append(cells, human.USD(g.CostUSDAfter), saved, share)
	}
	return cells
}

// writeTable lays out rows: the first column left-aligned, the others
// right-aligned, two spaces apart, each line indented by two.
func writeTable(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], termtext.Width(c))
		}
	}
	for _, row := range rows {
		b.WriteString("  ")
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-termtext.Width(c))
			if i == 0 {
				b.WriteString(c + pad)
				continue
			}
			b.WriteString("  " + pad + c)
		}
		b.WriteString("\n")
	}
}

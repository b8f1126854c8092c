package report

import (
	"slices"
	"strings"

	"github.com/spillway-dev/spillway/internal/layout"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// DefaultWidth is the width the text tables are fitted to when the caller
// knows none (output that is not a terminal, and no COLUMNS): wide enough
// for every column of the sweep and of a report under a policy.
const DefaultWidth = 160

// minWidth is the narrowest a table is fitted to.
const minWidth = 40

// elision says how a name column is shortened to fit.
type elision int

const (
	keepWhole  elision = iota
	elideStart         // keeps the start, and a count of others (" +2") whole: models
	elideMid           // keeps both ends: a path, a project
)

// textColumn is one column of a text table: its title, its cells (each
// already safe to draw), and how it gives way when the table is too wide.
type textColumn struct {
	title string
	cells []string
	right bool // right-aligned: figures
	// priority says which columns go first when the table is too wide:
	// the highest number first; 0 is never dropped.
	priority int
	// elide shortens the column's cells, down to min cells, before any
	// column is dropped for it.
	elide elision
	min   int

	width int // laid out
	id    int // its place in the table
}

// cellsOf is one cell per row.
func cellsOf[R any](rows []R, cell func(*R) string) []string {
	out := make([]string, len(rows))
	for i := range rows {
		out[i] = cell(&rows[i])
	}
	return out
}

// figureColumn is a right-aligned column of one cell per row.
func figureColumn[R any](rows []R, title string, priority int, cell func(*R) string) textColumn {
	return textColumn{title: title, right: true, priority: priority, cells: cellsOf(rows, cell)}
}

// tableGap is the space between two columns; tableIndent starts each line.
const (
	tableGap    = 2
	tableIndent = "  "
)

// writeColumns lays out cols in width cells, as the inspector lays out its
// tables: names shortened to their least, then the columns of the highest
// priority number dropped until the rest fit, then the names given back
// what is left over, up to their whole width. Each line is indented by
// two, and ends with the tail of its row (a row's note past the last
// column), if any.
func writeColumns(b *strings.Builder, cols []textColumn, width int, tails []string) {
	if width <= 0 {
		width = DefaultWidth
	}
	width = max(width, minWidth)
	for _, tail := range tails {
		width = max(minWidth, min(width, width-termtext.Width(tail)))
	}
	natural := make(map[string]int, len(cols))
	for i := range cols {
		c := &cols[i]
		c.width = termtext.Width(c.title)
		for _, s := range c.cells {
			c.width = max(c.width, termtext.Width(s))
		}
		natural[c.title] = c.width
		if c.elide != keepWhole {
			c.width = min(c.width, max(c.min, termtext.Width(c.title)))
		}
	}
	// The columns that are never dropped are laid out first; the others
	// fit in what they leave.
	var kept, droppable []textColumn
	fixed := 0
	for i := range cols {
		cols[i].id = i
		if cols[i].priority == 0 {
			kept = append(kept, cols[i])
			fixed += cols[i].width + tableGap
		} else {
			droppable = append(droppable, cols[i])
		}
	}
	if len(kept) == 0 {
		fixed = -tableGap
	}
	room := width - len(tableIndent) - fixed
	if room < 1 {
		droppable = nil
	}
	droppable = layout.Fit(droppable, room, tableGap, func(c *textColumn) (*int, int, bool) {
		return &c.width, c.priority, false
	})
	if len(droppable) == 1 && droppable[0].width > room {
		droppable = nil // Fit keeps one column; here the kept ones are it
	}
	fitted := append(kept, droppable...)
	slices.SortFunc(fitted, func(a, b textColumn) int { return a.id - b.id })
	used := -tableGap
	for _, c := range fitted {
		used += c.width + tableGap
	}
	// What is left over goes to the shortened names a cell at a time, in
	// turn, so that each shows as much of itself as the others.
	spare := width - len(tableIndent) - used
	for grew := true; grew && spare > 0; {
		grew = false
		for i := range fitted {
			c := &fitted[i]
			if c.elide != keepWhole && spare > 0 && c.width < natural[c.title] {
				c.width++
				spare--
				grew = true
			}
		}
	}
	rows := 1
	if len(fitted) > 0 {
		rows += len(fitted[0].cells)
	}
	var line strings.Builder
	for r := range rows {
		line.Reset()
		line.WriteString(tableIndent)
		for i := range fitted {
			c := &fitted[i]
			s := c.title
			if r > 0 {
				s = c.cells[r-1]
			}
			switch c.elide {
			case elideStart:
				s = truncateName(s, c.width)
			case elideMid:
				s = elideMiddle(s, c.width)
			}
			if i > 0 {
				line.WriteString(strings.Repeat(" ", tableGap))
			}
			pad := strings.Repeat(" ", max(0, c.width-termtext.Width(s)))
			if c.right {
				line.WriteString(pad + s)
			} else if i < len(fitted)-1 {
				line.WriteString(s + pad)
			} else {
				line.WriteString(s)
			}
		}
		if r > 0 && r-1 < len(tails) {
			line.WriteString(tails[r-1])
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteString("\n")
	}
}

// writeNote writes a note of a table wrapped to width: its first line
// indented by indent, the lines after it by two more.
func writeNote(b *strings.Builder, text string, width int, indent string) {
	if width <= 0 {
		width = DefaultWidth
	}
	width = max(width, minWidth)
	line, lineWidth := indent, termtext.Width(indent)
	started := false
	for _, word := range strings.Fields(text) {
		w := termtext.Width(word)
		if started && lineWidth+1+w > width {
			b.WriteString(line + "\n")
			line = indent + "  "
			lineWidth = termtext.Width(line)
			started = false
		}
		if started {
			line += " "
			lineWidth++
		}
		line += word
		lineWidth += w
		started = true
	}
	b.WriteString(line + "\n")
}

// truncateName cuts a name to width cells at its end, keeping whole a
// count of others after it (" +2"): the first model's name is cut, never
// how many more there are.
func truncateName(s string, width int) string {
	if termtext.Width(s) <= width {
		return s
	}
	if i := strings.LastIndex(s, " +"); i > 0 && strings.Trim(s[i+2:], "0123456789") == "" && len(s) > i+2 {
		more := s[i:]
		return termtext.Truncate(s[:i], width-termtext.Width(more)) + more
	}
	return termtext.Truncate(s, width)
}

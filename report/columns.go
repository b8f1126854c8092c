package report

import (
	"bytes"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/internal/layout"
)

// rightAligned lays out rows of tab-terminated cells exactly as
// text/tabwriter does with AlignRight and a padding of 2: each column as
// wide as its widest cell (in runes) plus 2, each cell right-aligned. It
// takes only rows with the same number of cells, which spares it
// tabwriter's general bookkeeping: the call table, one row per API call,
// spent a tenth of a text report in tabwriter.
type rightAligned struct {
	buf    []byte // the cells' text, back to back
	cells  []cell
	widths []int  // per column, in runes
	drop   []bool // per column: left out by fit
}

type cell struct{ end, runes int }

// newRightAligned returns a table with room for rows of about rowBytes.
func newRightAligned(rows, rowBytes int) *rightAligned {
	return &rightAligned{buf: make([]byte, 0, rows*rowBytes), cells: make([]cell, 0, rows*10)}
}

// add appends a row: cells each ending in a tab, then an optional "\n".
// Every row must have as many cells as the first.
func (t *rightAligned) add(row []byte) {
	row = bytes.TrimSuffix(row, []byte("\n"))
	col := 0
	for len(row) > 0 {
		i := bytes.IndexByte(row, '\t')
		if i < 0 {
			panic("report: a table row must end its last cell with a tab")
		}
		text := row[:i]
		runes := len(text)
		if !ascii(text) {
			runes = utf8.RuneCount(text)
		}
		t.buf = append(t.buf, text...)
		t.cells = append(t.cells, cell{end: len(t.buf), runes: runes})
		if col == len(t.widths) {
			t.widths = append(t.widths, 0)
		}
		t.widths[col] = max(t.widths[col], runes)
		col++
		row = row[i+1:]
	}
	if col != len(t.widths) {
		panic("report: table rows must have the same number of cells")
	}
}

// fit leaves out columns until the rows fit width cells, those of the
// highest priority number first (priority[i] is column i's; 0 is never
// left out), as the other text tables give way.
func (t *rightAligned) fit(width int, priority []int) {
	type col struct{ i, width, priority int }
	var cols []col
	fixed := 0
	for i, w := range t.widths {
		if priority[i] == 0 {
			fixed += w + 2
			continue
		}
		cols = append(cols, col{i, w, priority[i]})
	}
	t.drop = make([]bool, len(t.widths))
	for i := range t.drop {
		t.drop[i] = priority[i] != 0
	}
	// Each column takes its width and the padding of 2 before it: n
	// columns fit in room when their widths and n-1 gaps fit in room-2.
	room := width - fixed
	kept := layout.Fit(cols, room-2, 2, func(c *col) (*int, int, bool) { return &c.width, c.priority, false })
	used := 0
	for _, c := range kept {
		used += c.width + 2
	}
	if used > room {
		return // the one column Fit keeps does not fit either
	}
	for _, c := range kept {
		t.drop[c.i] = false
	}
}

// appendTo appends the laid-out rows to b.
func (t *rightAligned) appendTo(b []byte) []byte {
	const padding = 2
	start := 0
	for i, c := range t.cells {
		col := i % len(t.widths)
		if t.drop == nil || !t.drop[col] {
			for range t.widths[col] + padding - c.runes {
				b = append(b, ' ')
			}
			b = append(b, t.buf[start:c.end]...)
		}
		start = c.end
		if col == len(t.widths)-1 {
			b = append(b, '\n')
		}
	}
	return b
}

func ascii(s []byte) bool {
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

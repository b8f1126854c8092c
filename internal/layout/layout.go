// Package layout fits a table's columns to a width: the least needed
// columns are dropped until the rest fit, as the inspector and the text
// reports both lay out their tables.
package layout

import "slices"

// Fit lays out columns gap cells apart in width cells: it drops the column
// of the highest priority number (the last of them on a tie) until the
// rest fit, then gives what is left over to the one that grows. spec tells
// a column's width, priority and whether it grows. One column is always
// kept.
func Fit[C any](all []C, width, gap int, spec func(*C) (w *int, priority int, grows bool)) []C {
	used := func() int {
		n := -gap
		for i := range all {
			w, _, _ := spec(&all[i])
			n += *w + gap
		}
		return n
	}
	for used() > width && len(all) > 1 {
		worst, worstPriority := 0, -1
		for i := range all {
			if _, p, _ := spec(&all[i]); p > worstPriority {
				worst, worstPriority = i, p
			}
		}
		all = slices.Delete(all, worst, worst+1)
	}
	spare := max(0, width-used())
	for i := range all {
		if w, _, grows := spec(&all[i]); grows {
			*w += spare
		}
	}
	return all
}

package report

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestRightAligned checks the call table's layout against text/tabwriter
// with the options it replaces, on tables of random cells: ASCII, the
// marks the table uses (≥, –, →), wide and empty cells.
func TestRightAligned(t *testing.T) {
	pieces := []string{"", "0", "12", "1,234", "$0.001234", "≥", "–", "→", "claude-sonnet-4-5", "日本", "\\x1b[31m", "2026-01-02 10:00:04"}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		cols, rows := 1+rng.IntN(9), 1+rng.IntN(12)
		var lines []string
		for range rows {
			var line strings.Builder
			for range cols {
				for range rng.IntN(3) {
					line.WriteString(pieces[rng.IntN(len(pieces))])
				}
				line.WriteByte('\t')
			}
			line.WriteByte('\n')
			lines = append(lines, line.String())
		}
		var want bytes.Buffer
		tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', tabwriter.AlignRight)
		var table rightAligned
		for _, l := range lines {
			tw.Write([]byte(l))
			table.add([]byte(l))
		}
		tw.Flush()
		if got := table.appendTo(nil); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("trial %d, rows %q:\ngot\n%s\nwant\n%s", trial, lines, got, want.Bytes())
		}
	}
}

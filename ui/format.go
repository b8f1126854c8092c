package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// escape makes transcript text safe to draw on one line.
func escape(s string) string { return termtext.Escape(s) }

// align fits a (possibly styled) cell to width, padding on the left when right.
func align(s string, width int, right bool) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > width {
		s = ansi.Truncate(s, width, "…")
	}
	pad := strings.Repeat(" ", max(0, width-ansi.StringWidth(s)))
	if right {
		return pad + s
	}
	return s + pad
}

// stripStyles removes styling, so a selected row can be drawn in one style.
func stripStyles(s string) string { return ansi.Strip(s) }

// count writes a number with thousands separators.
func count(n int64) string { return human.Group(n) }

// compact writes a token count in at most 6 characters: 950, 31.9k, 1.24M.
func compact(n int64) string {
	switch {
	case n < 0:
		return "-" + compact(-n)
	case n < 10_000:
		return count(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	default:
		return fmt.Sprintf("%.2fM", float64(n)/1_000_000)
	}
}

// money writes dollars compactly: $0.0722, $3.14, $1,203; "?" when unknown.
func money(v *float64) string {
	if v == nil {
		return "?"
	}
	switch x := *v; {
	case x < 1:
		return fmt.Sprintf("$%.4f", x)
	case x < 1000:
		return fmt.Sprintf("$%.2f", x)
	default:
		return "$" + count(int64(x+0.5))
	}
}

// moneyFull writes dollars to the micro-dollar.
func moneyFull(v *float64) string {
	if v == nil {
		return "unknown"
	}
	return fmt.Sprintf("$%.6f", *v)
}

// bytesShort writes a size: 812B, 70.6K, 1.2M.
func bytesShort(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fK", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
	}
}

// percent writes the share saved.
func percent(before, after float64) string {
	if before <= 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", 100*(before-after)/before)
}

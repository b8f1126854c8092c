package ui

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/internal/human"
)

// stripStyles removes styling, so a selected row can be drawn in one style.
func stripStyles(s string) string { return ansi.Strip(s) }

// moneyAfter writes a cost after the policy to the cents its cost before
// is written to, so that the two, side by side, round alike: $1.04→$0.85,
// not $1.04→$0.8500.
func moneyAfter(after, before *float64) string {
	if before == nil {
		return human.Money(after)
	}
	return human.MoneyLike(after, *before)
}

package ui

import "github.com/charmbracelet/x/ansi"

// stripStyles removes styling, so a selected row can be drawn in one style.
func stripStyles(s string) string { return ansi.Strip(s) }

// Package themes holds spillway's palettes and the styles derived from
// them: the one place where colours and text attributes are chosen.
package themes

import (
	"fmt"
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Palette is a theme's semantic colours. A nil colour means the terminal's
// own (no colour at all in the monochrome theme).
type Palette struct {
	Name string
	// Mono themes mark things with attributes only (bold, underline,
	// reverse), so every marker stays distinct without colour.
	Mono bool

	Fg, Muted, Faint, Accent, Border color.Color
	SelectFg, SelectBg               color.Color
	Good, Bad, Warn, Error           color.Color

	// Guard actions.
	Truncate, Spill, Suppress, Stale, Exclude color.Color
	// Hazard marks a result the policy hid something of that the agent used.
	Hazard color.Color
	// What the model saw of a spilled result, and what it did not.
	Seen, Unseen color.Color
	Match        color.Color
}

// Names lists the themes --theme accepts.
var Names = []string{"auto", "dark", "light", "high-contrast", "mono"}

// Dark is the default on dark backgrounds.
var Dark = Palette{
	Name: "dark",
	Fg:   lipgloss.Color("#D8DEE9"), Muted: lipgloss.Color("#8C96A8"), Faint: lipgloss.Color("#5C6370"),
	Accent: lipgloss.Color("#7AA2F7"), Border: lipgloss.Color("#3B4252"),
	SelectFg: lipgloss.Color("#ECEFF4"), SelectBg: lipgloss.Color("#2E3A55"),
	Good: lipgloss.Color("#9ECE6A"), Bad: lipgloss.Color("#F7768E"), Warn: lipgloss.Color("#E0AF68"), Error: lipgloss.Color("#FF5F5F"),
	Truncate: lipgloss.Color("#E0AF68"), Spill: lipgloss.Color("#7DCFFF"), Suppress: lipgloss.Color("#BB9AF7"),
	Stale: lipgloss.Color("#FF5F87"), Exclude: lipgloss.Color("#737AA2"), Hazard: lipgloss.Color("#FF9E64"),
	Seen: lipgloss.Color("#D8DEE9"), Unseen: lipgloss.Color("#5C6370"), Match: lipgloss.Color("#E0AF68"),
}

// Light is the default on light backgrounds.
var Light = Palette{
	Name: "light",
	Fg:   lipgloss.Color("#24292F"), Muted: lipgloss.Color("#57606A"), Faint: lipgloss.Color("#8C959F"),
	Accent: lipgloss.Color("#0969DA"), Border: lipgloss.Color("#D0D7DE"),
	SelectFg: lipgloss.Color("#0B1F33"), SelectBg: lipgloss.Color("#DDF4FF"),
	Good: lipgloss.Color("#1A7F37"), Bad: lipgloss.Color("#CF222E"), Warn: lipgloss.Color("#9A6700"), Error: lipgloss.Color("#CF222E"),
	Truncate: lipgloss.Color("#9A6700"), Spill: lipgloss.Color("#0550AE"), Suppress: lipgloss.Color("#8250DF"),
	Stale: lipgloss.Color("#BF3989"), Exclude: lipgloss.Color("#6E7781"), Hazard: lipgloss.Color("#BC4C00"),
	Seen: lipgloss.Color("#24292F"), Unseen: lipgloss.Color("#8C959F"), Match: lipgloss.Color("#9A6700"),
}

// HighContrast uses the 16 basic colours at full strength.
var HighContrast = Palette{
	Name: "high-contrast",
	Fg:   lipgloss.Color("15"), Muted: lipgloss.Color("15"), Faint: lipgloss.Color("7"),
	Accent: lipgloss.Color("14"), Border: lipgloss.Color("15"),
	SelectFg: lipgloss.Color("0"), SelectBg: lipgloss.Color("15"),
	Good: lipgloss.Color("10"), Bad: lipgloss.Color("9"), Warn: lipgloss.Color("11"), Error: lipgloss.Color("9"),
	Truncate: lipgloss.Color("11"), Spill: lipgloss.Color("14"), Suppress: lipgloss.Color("13"),
	Stale: lipgloss.Color("9"), Exclude: lipgloss.Color("7"), Hazard: lipgloss.Color("12"),
	Seen: lipgloss.Color("15"), Unseen: lipgloss.Color("8"), Match: lipgloss.Color("11"),
}

// Mono has no colour: for NO_COLOR and for terminals without it.
var Mono = Palette{Name: "mono", Mono: true}

// Pick returns the palette named, resolving "auto" by the background.
// noColor (the NO_COLOR convention) forces the monochrome theme.
func Pick(name string, darkBackground, noColor bool) (Palette, error) {
	if noColor {
		return Mono, nil
	}
	switch strings.ToLower(name) {
	case "", "auto":
		if darkBackground {
			return Dark, nil
		}
		return Light, nil
	case "dark":
		return Dark, nil
	case "light":
		return Light, nil
	case "high-contrast", "contrast":
		return HighContrast, nil
	case "mono", "monochrome", "none":
		return Mono, nil
	}
	return Palette{}, fmt.Errorf("unknown theme %q (want %s)", name, strings.Join(Names, ", "))
}

// Marker names a guard action shown on a row.
type Marker int

// Markers, in legend order.
const (
	Truncated Marker = iota
	Spilled
	Suppressed
	Stale
	Excluded
	Hazard
	markerCount
)

// Glyph is the marker's letter; letters keep markers apart without colour.
func (m Marker) Glyph() string { return [...]string{"T", "S", "R", "!", "x", "H"}[m] }

// Name is the marker's legend word.
func (m Marker) Name() string {
	return [...]string{"truncated", "spilled", "repeat suppressed", "stale repeat", "excluded", "hazard"}[m]
}

// Markers lists every marker.
func Markers() []Marker { return []Marker{Truncated, Spilled, Suppressed, Stale, Excluded, Hazard} }

// Styles are every style spillway draws with.
type Styles struct {
	Palette Palette

	Title, Subtitle, Label, Value, Muted, Faint lipgloss.Style
	TableHeader, Selected                       lipgloss.Style
	Saved                                       lipgloss.Style
	Marker                                      [markerCount]lipgloss.Style
	Alert, Warning, Error, Live                 lipgloss.Style
	Separator                                   lipgloss.Style
	LineNumber, Seen, Unseen, Match, Current    lipgloss.Style
	ChartBar, ChartCurrent                      lipgloss.Style
	Help                                        help.Styles
	// Costly marks the costliest calls; ChartAfter is the after-policy
	// series of a chart, ChartEvent a compaction on it; ChartAfterInBar
	// the top cell of an after bar, partly filled, inside the recorded
	// bar: its empty part is drawn in the recorded bar's colour.
	Costly, ChartAfter, ChartAfterInBar, ChartEvent lipgloss.Style
}

// New derives the styles of a palette.
func New(p Palette) *Styles {
	fg := func(c color.Color) lipgloss.Style {
		s := lipgloss.NewStyle()
		if c != nil && !p.Mono {
			s = s.Foreground(c)
		}
		return s
	}
	s := &Styles{Palette: p}
	s.Title = fg(p.Accent).Bold(true)
	s.Subtitle = fg(p.Muted)
	s.Label = fg(p.Muted)
	s.Value = fg(p.Fg)
	s.Muted = fg(p.Muted)
	s.Faint = fg(p.Faint).Faint(p.Mono)
	s.TableHeader = fg(p.Muted).Bold(true).Underline(p.Mono)
	s.Selected = lipgloss.NewStyle().Bold(true)
	if p.Mono {
		s.Selected = s.Selected.Reverse(true)
	} else {
		s.Selected = s.Selected.Foreground(p.SelectFg).Background(p.SelectBg)
	}
	s.Saved = fg(p.Good).Bold(p.Mono)
	s.Marker[Truncated] = fg(p.Truncate).Bold(true)
	s.Marker[Spilled] = fg(p.Spill).Bold(true).Underline(p.Mono)
	s.Marker[Suppressed] = fg(p.Suppress).Bold(true).Italic(p.Mono)
	s.Marker[Stale] = fg(p.Stale).Bold(true).Reverse(p.Mono)
	s.Marker[Excluded] = fg(p.Exclude).Faint(p.Mono)
	s.Marker[Hazard] = fg(p.Hazard).Bold(true).Underline(p.Mono).Reverse(p.Mono)
	s.Alert = fg(p.Warn).Bold(true).Reverse(p.Mono)
	s.Warning = fg(p.Warn)
	s.Error = fg(p.Error).Bold(true)
	s.Live = fg(p.Good).Bold(true)
	s.Separator = fg(p.Faint)
	s.LineNumber = fg(p.Faint)
	s.Seen = fg(p.Seen)
	s.Unseen = fg(p.Unseen).Faint(p.Mono)
	s.Match = fg(p.Match).Underline(true)
	s.Current = lipgloss.NewStyle().Reverse(true).Bold(true)
	s.ChartBar = fg(p.Accent)
	s.ChartCurrent = fg(p.Good).Bold(true).Reverse(p.Mono)
	s.Costly = fg(p.Bad).Bold(true).Underline(p.Mono)
	s.ChartAfter = fg(p.Good).Bold(p.Mono)
	s.ChartAfterInBar = s.ChartAfter
	if !p.Mono {
		s.ChartAfterInBar = s.ChartAfter.Background(p.Accent)
	}
	s.ChartEvent = fg(p.Warn).Bold(true)
	// The key hints take the palette's colours, not the help's own greys.
	s.Help = help.DefaultStyles(p.Name != "light")
	s.Help.ShortKey, s.Help.FullKey = fg(p.Fg).Bold(true), fg(p.Fg).Bold(true)
	s.Help.ShortDesc, s.Help.FullDesc = fg(p.Muted), fg(p.Muted)
	s.Help.ShortSeparator, s.Help.FullSeparator, s.Help.Ellipsis = fg(p.Faint), fg(p.Faint), fg(p.Faint)
	if p.Mono {
		plain := lipgloss.NewStyle()
		s.Help.ShortKey, s.Help.ShortDesc, s.Help.ShortSeparator = plain.Bold(true), plain, plain
		s.Help.FullKey, s.Help.FullDesc, s.Help.FullSeparator = plain.Bold(true), plain, plain
		s.Help.Ellipsis = plain
	}
	return s
}

// Gain is the style of a saving of n: Saved, or Warning where n is below
// zero (a policy that made the prompt longer).
func (s *Styles) Gain(n float64) lipgloss.Style {
	if n < 0 {
		return s.Warning
	}
	return s.Saved
}

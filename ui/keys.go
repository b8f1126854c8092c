package ui

import (
	"charm.land/bubbles/v2/key"
)

// KeyMap is every key the inspector answers to; the help view is built
// from it.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	NextEvent, PrevEvent, Costliest         key.Binding
	Bookmark, NextBookmark                  key.Binding
	Search, NextMatch, PrevMatch            key.Binding
	Sort, Focus, Layout, Open               key.Binding

	Raise, Lower, Exact, Dedupe, DedupeFrom, Spill, Preset, Undo, Write key.Binding

	Warnings, Follow, Help, Quit key.Binding
}

// DefaultKeyMap returns the standard bindings.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:           b([]string{"k", "up"}, "↑/k", "up"),
		Down:         b([]string{"j", "down"}, "↓/j", "down"),
		PageUp:       b([]string{"pgup", "ctrl+b"}, "pgup", "page up"),
		PageDown:     b([]string{"pgdown", "ctrl+f"}, "pgdn", "page down"),
		Top:          b([]string{"g", "home"}, "g", "first call"),
		Bottom:       b([]string{"G", "end"}, "G", "last call"),
		NextEvent:    b([]string{"]"}, "]", "next guard action"),
		PrevEvent:    b([]string{"["}, "[", "previous guard action"),
		Costliest:    b([]string{"c"}, "c", "costliest call"),
		Bookmark:     b([]string{"m"}, "m", "bookmark call"),
		NextBookmark: b([]string{"'"}, "'", "next bookmark"),
		Search:       b([]string{"/"}, "/", "search"),
		NextMatch:    b([]string{"n"}, "n", "next match"),
		PrevMatch:    b([]string{"N"}, "N", "previous match"),
		Sort:         b([]string{"o"}, "o", "sort: order/cost/Δ"),
		Focus:        b([]string{"tab"}, "tab", "calls/detail"),
		Layout:       b([]string{"v"}, "v", "side by side/stacked"),
		Open:         b([]string{"enter"}, "enter", "open full result"),
		Raise:        b([]string{"+", "="}, "+", "double ceiling"),
		Lower:        b([]string{"-", "_"}, "-", "halve ceiling"),
		Exact:        b([]string{"e"}, "e", "type ceiling"),
		Dedupe:       b([]string{"d"}, "d", "dedupe on/off"),
		DedupeFrom:   b([]string{"D"}, "D", "dedupe from 2nd/3rd"),
		Spill:        b([]string{"s"}, "s", "spill/truncate"),
		Preset:       b([]string{"p"}, "p", "next preset"),
		Undo:         b([]string{"u"}, "u", "undo change"),
		Write:        b([]string{"w"}, "w", "write policy file"),
		Warnings:     b([]string{"W"}, "W", "warnings"),
		Follow:       b([]string{"f"}, "f", "follow on/off"),
		Help:         b([]string{"?"}, "?", "help"),
		Quit:         b([]string{"q", "ctrl+c"}, "q", "quit"),
	}
}

// ShortHelp is the footer's one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Open, k.NextEvent, k.Raise, k.Lower, k.Preset, k.Search, k.Help, k.Quit}
}

// FullHelp is the help screen, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextEvent, k.PrevEvent, k.Costliest, k.Bookmark, k.NextBookmark, k.Sort},
		{k.Search, k.NextMatch, k.PrevMatch, k.Focus, k.Layout, k.Open},
		{k.Raise, k.Lower, k.Exact, k.Dedupe, k.DedupeFrom, k.Spill},
		{k.Preset, k.Undo, k.Write, k.Warnings, k.Follow, k.Help, k.Quit},
	}
}

// All lists every binding, for tests that press each key.
func (k KeyMap) All() []key.Binding {
	var out []key.Binding
	for _, col := range k.FullHelp() {
		out = append(out, col...)
	}
	return out
}

package ui

import (
	"charm.land/bubbles/v2/key"

	"github.com/spillway-dev/spillway/spillview"
)

// KeyMap is every key the inspector answers to; the help view is built
// from it. Moving about and the prompts' keys are the spill viewer's own
// maps, so the two answer to the same keys.
type KeyMap struct {
	// NavKeyMap moves in the table, the detail pane and the overlays;
	// Left and Right pick a call's result in the detail pane.
	spillview.NavKeyMap
	NextEvent, PrevEvent, Costliest key.Binding
	// NextHazard jumps between the calls whose results have a hazard.
	NextHazard                      key.Binding
	Bookmark, NextBookmark          key.Binding
	Search, NextMatch, PrevMatch    key.Binding
	Sort, Focus, Layout, Open, Back key.Binding

	Raise, Lower, Exact, Dedupe, DedupeFrom, Spill, Preset, Undo, Write key.Binding
	// WriteFormat, in w's prompt, picks what is written: spillway's
	// policy file or a harness's configuration.
	WriteFormat key.Binding

	Warnings, Follow, Help, Quit, Interrupt key.Binding
	// Yes and No answer a question (overwrite a file?).
	Yes, No key.Binding

	// Prompt is the search, ceiling and file prompts'.
	Prompt spillview.PromptKeyMap

	// List is the session list's own: the same keys as their namesakes
	// in a session's calls, meaning what they mean there.
	List ListKeyMap

	// Tools and Context open the per-tool view and the context chart;
	// Copy puts the selected result's text on the clipboard, Pager opens
	// it in $PAGER.
	Tools, Context, Copy, Pager key.Binding
}

// ListKeyMap holds the session list's keys; moving, tuning, help and quit
// are the calls' own.
type ListKeyMap struct {
	Open, Back, Filter, Sort key.Binding
	// Subagents shows or hides the selected session's sub-agents.
	Subagents key.Binding
}

// DefaultKeyMap returns the standard bindings.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	nav := spillview.DefaultNavKeyMap()
	nav.Left.SetHelp("←/h", "previous result")
	nav.Right.SetHelp("→/l", "next result")
	return KeyMap{
		NavKeyMap:    nav,
		NextEvent:    b([]string{"]"}, "]", "next changed call"),
		PrevEvent:    b([]string{"["}, "[", "previous changed call"),
		Costliest:    b([]string{"c"}, "c", "costliest call"),
		NextHazard:   b([]string{"H"}, "H", "next hazard"),
		Bookmark:     b([]string{"m"}, "m", "bookmark call"),
		NextBookmark: b([]string{"'"}, "'", "next bookmark"),
		Search:       b([]string{"/"}, "/", "search"),
		NextMatch:    b([]string{"n"}, "n", "next match"),
		PrevMatch:    b([]string{"N"}, "N", "previous match"),
		Sort:         b([]string{"o"}, "o", "sort: order/cost/Δ"),
		Focus:        b([]string{"tab"}, "tab", "calls/detail"),
		Layout:       b([]string{"v"}, "v", "side by side/stacked"),
		Open:         b([]string{"enter"}, "enter", "open full result"),
		Back:         b([]string{"esc"}, "esc", "back to the calls"),
		Raise:        b([]string{"+", "="}, "+", "double ceiling"),
		Lower:        b([]string{"-", "_"}, "-", "halve ceiling"),
		Exact:        b([]string{"e"}, "e", "type ceiling"),
		Dedupe:       b([]string{"d"}, "d", "dedupe on/off"),
		DedupeFrom:   b([]string{"D"}, "D", "dedupe from 2nd/3rd"),
		Spill:        b([]string{"s"}, "s", "spill/truncate"),
		Preset:       b([]string{"p"}, "p", "next preset"),
		Undo:         b([]string{"u"}, "u", "undo change"),
		Write:        b([]string{"w"}, "w", "write policy file"),
		WriteFormat:  b([]string{"tab"}, "tab", "w: next format"),
		Warnings:     b([]string{"W"}, "W", "warnings"),
		Follow:       b([]string{"f"}, "f", "follow on/off"),
		Help:         b([]string{"?"}, "?", "help"),
		Quit:         b([]string{"q"}, "q", "quit"),
		Interrupt:    b([]string{"ctrl+c"}, "ctrl+c", "quit from anywhere"),
		Yes:          b([]string{"y"}, "y", "yes (overwrite)"),
		No:           b([]string{"n"}, "n", "no (keep the file)"),
		Prompt:       spillview.DefaultPromptKeyMap(),
		List: ListKeyMap{
			Open:   b([]string{"enter"}, "enter", "open session (esc: back to the list)"),
			Back:   b([]string{"esc"}, "esc", "clear the session filter"),
			Filter: b([]string{"/"}, "/", "filter sessions"),
			Sort:   b([]string{"o"}, "o", "sort sessions: time/cost/saved"),

			Subagents: b([]string{"a"}, "a", "sub-agents of the session shown/hidden"),
		},
		Tools:   b([]string{"T"}, "T", "results by tool"),
		Context: b([]string{"C"}, "C", "context over time"),
		Copy:    b([]string{"y"}, "y", "copy result text"),
		Pager:   b([]string{"O"}, "O", "result in $PAGER"),
	}
}

// ShortHelp is the footer's one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Open, k.NextEvent, k.Raise, k.Lower, k.Preset, k.Search, k.Help, k.Quit}
}

// ListShortHelp is the footer's one-line help on the session list.
func (k KeyMap) ListShortHelp() []key.Binding {
	open := k.List.Open
	open.SetHelp("enter", "open")
	sort := k.List.Sort
	sort.SetHelp("o", "sort")
	filter := k.List.Filter
	filter.SetHelp("/", "filter")
	// Help before the tuning keys: at 80 columns the line is cut after
	// the ceiling's keys, and ? is how to find the rest.
	return []key.Binding{k.Down, open, sort, filter, k.Help, k.Raise, k.Lower, k.Preset, k.Quit}
}

// FullHelp is the help screen, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.NextEvent, k.PrevEvent, k.Costliest, k.Bookmark, k.NextBookmark, k.Sort},
		{k.Search, k.NextMatch, k.PrevMatch, k.Focus, k.Left, k.Right},
		{k.Layout, k.Open, k.Back, k.Raise, k.Lower, k.Exact},
		{k.Dedupe, k.DedupeFrom, k.Spill, k.Preset, k.Undo, k.Write},
		{k.Warnings, k.Follow, k.Help, k.Quit, k.Interrupt, k.NextHazard},
		{k.Prompt.Submit, k.Prompt.Cancel, k.Prompt.Clear, k.Yes, k.No, k.WriteFormat},
		{k.Tools, k.Context, k.Copy, k.Pager},
	}
}

// SessionFullHelp is FullHelp in a session opened from the list, with the
// key back to it: the list's other keys do nothing there.
func (k KeyMap) SessionFullHelp() [][]key.Binding {
	back := k.List.Back
	back.SetHelp("esc", "back to the list")
	groups := k.FullHelp()
	last := len(groups) - 1
	groups[last] = append(groups[last], back)
	return groups
}

// ListFullHelp is the help screen on the session list: only the keys the
// list answers to, so that none it lists does nothing there.
func (k KeyMap) ListFullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.List.Open, k.List.Back, k.List.Filter, k.List.Sort, k.List.Subagents, k.Warnings, k.Follow},
		{k.Raise, k.Lower, k.Exact, k.Dedupe, k.DedupeFrom, k.Spill},
		{k.Preset, k.Undo, k.Write, k.Help, k.Quit, k.Interrupt},
		{k.Prompt.Submit, k.Prompt.Cancel, k.Prompt.Clear, k.Yes, k.No},
	}
}

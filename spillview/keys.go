package spillview

import "charm.land/bubbles/v2/key"

// KeyMap is every key the viewer answers to outside the search prompt.
type KeyMap struct {
	Up, Down, PageUp, PageDown, HalfUp, HalfDown, Top, Bottom key.Binding
	Left, Right, Search, Next, Prev, Close                    key.Binding
}

// DefaultKeyMap returns less-like bindings.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Up:       b([]string{"k", "up"}, "↑/k", "up"),
		Down:     b([]string{"j", "down"}, "↓/j", "down"),
		PageUp:   b([]string{"pgup", "b"}, "pgup/b", "page up"),
		PageDown: b([]string{"pgdown", "space"}, "pgdn/space", "page down"),
		HalfUp:   b([]string{"ctrl+u"}, "ctrl+u", "half page up"),
		HalfDown: b([]string{"ctrl+d"}, "ctrl+d", "half page down"),
		Top:      b([]string{"g", "home"}, "g/home", "top"),
		Bottom:   b([]string{"G", "end"}, "G/end", "bottom"),
		Left:     b([]string{"h", "left"}, "←/h", "scroll left"),
		Right:    b([]string{"l", "right"}, "→/l", "scroll right"),
		Search:   b([]string{"/"}, "/", "search"),
		Next:     b([]string{"n"}, "n", "next match"),
		Prev:     b([]string{"N"}, "N", "previous match"),
		Close:    b([]string{"q", "esc"}, "q/esc", "back"),
	}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.PageDown, k.Right, k.Search, k.Next, k.Close}
}

// FullHelp is the help in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.Left, k.Right},
		{k.Search, k.Next, k.Prev, k.Close},
	}
}

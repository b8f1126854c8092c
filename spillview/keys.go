package spillview

import (
	"reflect"

	"charm.land/bubbles/v2/key"
)

// NavKeyMap is the moving about that the viewer and the inspector share:
// one set of bindings, so that both answer to the same keys.
type NavKeyMap struct {
	Up, Down, PageUp, PageDown, HalfUp, HalfDown, Top, Bottom, Left, Right key.Binding
}

// PromptKeyMap is what a one-line prompt answers to besides typing.
type PromptKeyMap struct {
	Submit, Cancel, Clear key.Binding
}

// KeyMap is every key the viewer answers to.
type KeyMap struct {
	NavKeyMap
	Search, Next, Prev, Help, Close key.Binding
	// Prompt is the search prompt's.
	Prompt PromptKeyMap
}

func binding(keys []string, help, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultNavKeyMap returns less-like bindings.
func DefaultNavKeyMap() NavKeyMap {
	return NavKeyMap{
		Up:       binding([]string{"k", "up"}, "↑/k", "up"),
		Down:     binding([]string{"j", "down"}, "↓/j", "down"),
		PageUp:   binding([]string{"pgup", "b", "ctrl+b"}, "pgup/b/ctrl+b", "page up"),
		PageDown: binding([]string{"pgdown", "space", "ctrl+f"}, "pgdn/space/ctrl+f", "page down"),
		HalfUp:   binding([]string{"ctrl+u"}, "ctrl+u", "½ page up"),
		HalfDown: binding([]string{"ctrl+d"}, "ctrl+d", "½ page down"),
		Top:      binding([]string{"g", "home"}, "g/home", "top"),
		Bottom:   binding([]string{"G", "end"}, "G/end", "bottom"),
		Left:     binding([]string{"h", "left"}, "←/h", "scroll left"),
		Right:    binding([]string{"l", "right"}, "→/l", "scroll right"),
	}
}

// DefaultPromptKeyMap returns the prompt's bindings.
func DefaultPromptKeyMap() PromptKeyMap {
	return PromptKeyMap{
		Submit: binding([]string{"enter"}, "enter", "prompt: done"),
		Cancel: binding([]string{"esc"}, "esc", "prompt: cancel"),
		Clear:  binding([]string{"ctrl+u"}, "ctrl+u", "prompt: clear"),
	}
}

// DefaultKeyMap returns the viewer's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		NavKeyMap: DefaultNavKeyMap(),
		Search:    binding([]string{"/"}, "/", "search"),
		Next:      binding([]string{"n"}, "n", "next match"),
		Prev:      binding([]string{"N"}, "N", "previous match"),
		Help:      binding([]string{"?"}, "?", "help"),
		Close:     binding([]string{"q", "esc"}, "q/esc", "back"),
		Prompt:    DefaultPromptKeyMap(),
	}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Up, k.PageDown, k.Right, k.Search, k.Next, k.Help, k.Close}
}

// FullHelp is the help in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.HalfUp, k.HalfDown, k.Top, k.Bottom},
		{k.Left, k.Right, k.Help, k.Close},
		{k.Search, k.Next, k.Prev},
		{k.Prompt.Submit, k.Prompt.Cancel, k.Prompt.Clear},
	}
}

// Bindings lists every binding of a key map (a struct of bindings and of
// structs of bindings), for tests that check each is in the help.
func Bindings(keymap any) []key.Binding {
	var out []key.Binding
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if b, ok := v.Interface().(key.Binding); ok {
			out = append(out, b)
			return
		}
		if v.Kind() == reflect.Struct {
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(keymap))
	return out
}

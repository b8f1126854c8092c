package ui

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/spillway-dev/spillway/internal/slowtest"

	"github.com/spillway-dev/spillway/internal/keytest"
)

// keyNames are the keys the random key test presses: every key a binding
// names, the keys of the text prompts, and more.
var keyNames = func() []string {
	var names []string
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/?+-=_[]'.,:;~!@#$%^&*()<>|\\\"`{}é日" {
		names = append(names, string(c))
	}
	special := []string{"up", "down", "left", "right", "pgup", "pgdown", "home", "end", "enter", "esc", "tab", "backspace", "delete", "space"}
	names = append(names, special...)
	for _, s := range append([]string{"d", "b", "f", "w", "u", "k", "a", "e", "h", "v", "n", "p"}, special...) {
		if s != "space" {
			names = append(names, "alt+"+s, "ctrl+"+s)
		}
	}
	return names
}()

// randomKeys presses n keys drawn from keyNames by a generator seeded
// with seed into m, now and then a resize or a wheel.
func randomKeys(t *testing.T, m *Model, seed uint64, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	msgs := make([]tea.Msg, n)
	for i := range msgs {
		switch r := rng.IntN(100); {
		case r == 0:
			msgs[i] = tea.WindowSizeMsg{Width: rng.IntN(200), Height: rng.IntN(60)}
		case r == 1:
			msgs[i] = tea.MouseWheelMsg{Button: wheels[rng.IntN(len(wheels))]}
		default:
			msgs[i] = keytest.Press(keyNames[rng.IntN(len(keyNames))])
		}
	}
	pressKeys(t, m, fmt.Sprint("seed ", seed), msgs)
}

var wheels = []tea.MouseButton{tea.MouseWheelUp, tea.MouseWheelDown, tea.MouseWheelLeft, tea.MouseWheelRight}

// pressKeys hands each message to m and draws the screen after it,
// running the commands each starts for as long as they answer at once. A
// panic fails the test with the messages that led to it.
func pressKeys(t testing.TB, m *Model, name string, msgs []tea.Msg) {
	t.Helper()
	i := 0
	defer func() {
		if r := recover(); r != nil {
			var last []string
			for _, msg := range msgs[max(0, i-40) : i+1] {
				last = append(last, fmt.Sprint(msg))
			}
			t.Fatalf("%s: panic at message %d (the last: %q): %v\n%s", name, i, last, r, debug.Stack())
		}
	}()
	for ; i < len(msgs); i++ {
		_, cmd := m.Update(msgs[i])
		runBriefly(m, []tea.Cmd{cmd})
		m.View()
	}
}

// runBriefly runs the queued commands, and those they lead to, taking
// each message that comes within a moment; the others are dropped, as a
// program whose user types on would let them wait.
func runBriefly(m *Model, queue []tea.Cmd) { rounds(m, queue, 20*time.Millisecond, 16) }

// panicMsg carries a command's panic to the test's goroutine.
type panicMsg struct {
	value any
	stack []byte
}

// keyCount is how many random keys each model takes: 2,000 in all, at
// about 1.5 ms of processor time a key; a tenth of that under -short.
func keyCount() int {
	if testing.Short() {
		return 50
	}
	return 500
}

// TestRandomKeys presses seeded random keys into the inspector on a
// session (its spill viewer and every prompt among them) and on a list of
// sessions, as functions, never a terminal: no key panics.
func TestRandomKeys(t *testing.T) {
	data := demoData(t)
	fleet := fleetFixture(t)
	t.Chdir(t.TempDir()) // w writes where it runs
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd { return func() tea.Msg { return fn(nil) } }
	defer func() { execProcess = tea.ExecProcess }()
	for seed := range uint64(2) {
		t.Run(fmt.Sprint("session/", seed), func(t *testing.T) {
			randomKeys(t, newModel(t, data, "harness-rs-0.0.50", 120, 40, "dark"), seed, keyCount())
		})
		t.Run(fmt.Sprint("list/", seed), func(t *testing.T) {
			randomKeys(t, newListModel(t, []string{fleet}, "claude-code", 120, 40, longAgo), seed, keyCount())
		})
	}
}

// TestRandomKeysLong is TestRandomKeys at 10,000 keys for each model.
func TestRandomKeysLong(t *testing.T) {
	slowtest.OptIn(t, "20,000 random keys, about 20 s of processor time")
	data := demoData(t)
	fleet := fleetFixture(t)
	t.Chdir(t.TempDir())
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd { return func() tea.Msg { return fn(nil) } }
	t.Cleanup(func() { execProcess = tea.ExecProcess }) // after the subtests, which a defer is not
	// Side by side: each is about 10 s of one processor.
	t.Run("session", func(t *testing.T) {
		t.Parallel()
		randomKeys(t, newModel(t, data, "harness-rs-0.0.50", 120, 40, "dark"), 7, 10_000)
	})
	t.Run("list", func(t *testing.T) {
		t.Parallel()
		randomKeys(t, newListModel(t, []string{fleet}, "claude-code", 120, 40, longAgo), 7, 10_000)
	})
}

// FuzzKeys presses the keys its input names, a byte each, into the
// inspector on a session. Its seeds are the presses that found panics:
// alt+d and its like on a prompt's last rune, in each prompt.
func FuzzKeys(f *testing.F) {
	keys := func(names ...string) []byte {
		var b []byte
		for _, n := range names {
			b = append(b, byte(slices.Index(keyNames, n)))
		}
		return b
	}
	for _, open := range [][]string{{"/"}, {"e"}, {"w"}, {"enter", "/"}} {
		for _, del := range []string{"alt+d", "alt+delete", "ctrl+delete"} {
			f.Add(keys(append(open, "a", "b", "left", del)...))
		}
	}
	data := demoData(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		t.Chdir(t.TempDir())
		m := newModel(t, data, "harness-rs-0.0.50", 100, 30, "dark")
		msgs := make([]tea.Msg, len(in))
		for i, b := range in {
			msgs[i] = keytest.Press(keyNames[int(b)%len(keyNames)])
		}
		pressKeys(t, m, "keys", msgs)
	})
}

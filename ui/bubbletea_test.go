package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// TestFollowStartsInBackground holds a folder's walk (a large
// ~/.claude/projects) until the first frame is drawn: Init and Update must
// not wait for it, and the session shows once the follower answers.
func TestFollowStartsInBackground(t *testing.T) {
	data := demoData(t)
	release := make(chan struct{})
	walked := make(chan struct{}, 1)
	follow = func(ctx context.Context, path string, opt transcript.FollowOptions) (<-chan transcript.Update, error) {
		walked <- struct{}{}
		<-release
		s, err := transcript.Read(strings.NewReader(string(data)), "newest.jsonl", opt.Options)
		ch := make(chan transcript.Update, 1)
		ch <- transcript.Update{Session: s, Err: err, Path: path + "/newest.jsonl"}
		close(ch)
		return ch, nil
	}
	t.Cleanup(func() { follow = transcript.Follow })
	policy, _ := policy.Preset("harness-rs-0.0.40")
	m := New(Options{Source: Source{Path: t.TempDir()}, Follow: true, Policy: policy, Prices: pricing.Default(), Counter: counter})
	leaveAtEnd(t, m)

	frame := make(chan string, 1)
	var cmd tea.Cmd
	go func() {
		cmd = m.Init()
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		frame <- screen(m)
	}()
	select {
	case out := <-frame:
		if !strings.Contains(out, "live") {
			t.Errorf("the first frame does not say the folder is followed:\n%s", out)
		}
	case <-time.After(2 * time.Second):
		close(release)
		t.Fatal("the first frame waited for the folder's walk")
	}
	done := make(chan struct{})
	go func() { drive(t, m, cmd); close(done) }() // the follower's command waits for the walk
	select {
	case <-walked:
	case <-time.After(2 * time.Second):
		t.Fatal("the follower never started")
	}
	close(release)
	<-done
	if m.sess.session == nil || len(m.sess.session.Calls) != 16 {
		t.Fatalf("the followed session never arrived")
	}
}

// persisted is a Claude Code session whose one result the agent persisted
// to path, as Claude Code does over 50,000 characters.
func persisted(path string) []byte {
	text := "<persisted-output>\nOutput too large (61.2KB). Full output saved to: " + path + "\n\nPreview (first 2KB):\nline one\n</persisted-output>"
	lines := []map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "s", "message": map[string]any{"role": "user", "content": "list"}},
		{"type": "assistant", "uuid": "a1", "sessionId": "s", "requestId": "r1", "message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5",
			"content":     []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "ls -R /"}}},
			"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "sessionId": "s", "message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": "t1", "content": text}}}},
		{"type": "assistant", "uuid": "a2", "sessionId": "s", "requestId": "r2", "message": map[string]any{"id": "m2", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "done"}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 100, "output_tokens": 5}}},
	}
	return jsonLines(lines)
}

// spilledSession writes a Claude Code session whose one result the agent
// persisted, as Claude Code does, to <session>/tool-results/out.txt beside
// the transcript, and opens it in the inspector; it returns the model and
// the spill file's path (not yet written).
func spilledSession(t *testing.T) (*Model, string) {
	t.Helper()
	dir := t.TempDir()
	transcriptPath := filepath.Join(dir, "s.jsonl")
	path := filepath.Join(dir, "s", "tool-results", "out.txt")
	if err := os.WriteFile(transcriptPath, persisted(path), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Preset("harness-rs-0.0.40")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Source: Source{Name: transcriptPath, Path: transcriptPath}, Policy: pol, Prices: pricing.Default(),
		Counter: counter, Theme: "dark",
	})
	leaveAtEnd(t, m)
	drive(t, m, m.Init())
	send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	return m, path
}

// TestAgentSpillFileLookedUpInCommand: enter on a result the agent spilled
// looks its file up in a command, not in Update. The file is written after
// the key is handled and before the command runs, so only a lookup made in
// the command finds it.
func TestAgentSpillFileLookedUpInCommand(t *testing.T) {
	m, path := spilledSession(t)
	_, cmd := m.Update(keyMsg("enter"))
	if err := os.WriteFile(path, []byte("the whole listing, from the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	drive(t, m, cmd)
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "the whole listing, from the file") || !strings.Contains(out, "the file the agent spilled this result to") {
		t.Errorf("the file is not shown:\n%s", out)
	}
	if exists, known := m.sess.agentFiles[path]; !known || !exists {
		t.Errorf("the lookup's answer is not kept: %v, %v", exists, known)
	}
}

// TestAgentSpillFileMissing: the pane says a file the agent spilled a
// result to is missing once a command found it so, before enter is
// pressed; written later, it is looked for again on enter and opened.
func TestAgentSpillFileMissing(t *testing.T) {
	m, path := spilledSession(t)
	send(t, m, tea.WindowSizeMsg{Width: 400, Height: 30}) // room for the whole line
	line := func() string {
		for _, l := range m.sess.detail.lines {
			if l := ansi.Strip(l); strings.HasPrefix(l, "the agent spilled this itself: ") {
				return l
			}
		}
		return ""
	}
	if got, want := line(), "the agent spilled this itself: "+path+", missing here (enter shows what the transcript holds)"; got != want {
		t.Errorf("detail line %q, want %q", got, want)
	}
	if exists, known := m.sess.agentFiles[path]; !known || exists {
		t.Errorf("lookup's answer %v, known %v; want it known missing", exists, known)
	}
	if err := os.WriteFile(path, []byte("written since\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	press(t, m, "enter")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "written since") {
		t.Errorf("the file written since is not opened:\n%s", out)
	}
	press(t, m, "esc")
	if got, want := line(), "the agent spilled this itself: "+path+" (enter opens it)"; got != want {
		t.Errorf("detail line %q, want %q", got, want)
	}
}

// TestSpillOpenError: a spill file that exists but cannot be opened (here
// a folder where the agent's file should be) shows why, not "opening…"
// forever.
func TestSpillOpenError(t *testing.T) {
	m, path := spilledSession(t)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	press(t, m, "enter")
	out := ansi.Strip(screen(m))
	if strings.Contains(out, "opening…") || !strings.Contains(out, "the agent's spill file is not opened: "+path) {
		t.Errorf("the error is not shown:\n%s", out)
	}
}

// TestViewChangesNothing: scrolling past the end is held back in Update,
// so drawing a frame leaves the model as it was.
func TestViewChangesNothing(t *testing.T) {
	state := func(m *Model) string {
		return fmt.Sprintf("detail offset %d key %q lines %d · overlay scroll %d, %d · table offset %d cursor %d",
			m.sess.detail.offset, m.sess.detail.key, len(m.sess.detail.lines), m.overlayScroll, m.sess.overlayScroll, m.sess.table.offset, m.sess.table.cursor)
	}
	tests := []struct {
		name string
		w, h int
		keys []string
		ok   func(m *Model) bool
	}{
		{"detail pane scrolled to its end", 120, 40, []string{"tab", "G", "j", "j"}, func(m *Model) bool {
			return m.sess.detail.offset > 0 && m.sess.detail.offset == len(m.sess.detail.lines)-(m.sess.detail.height-1)
		}},
		{"detail pane of another call", 120, 40, []string{"tab", "G", "esc", "j"}, func(m *Model) bool { return m.sess.detail.offset == 0 }},
		{"help scrolled past its end", 60, 15, []string{"?", "pgdown", "pgdown", "pgdown", "pgdown"}, func(m *Model) bool {
			return m.overlayScroll == len(m.helpLines())-(15-helpHead)
		}},
		{"warnings scrolled past their end", 100, 8, []string{"W", "j", "j", "j", "j", "j", "j"}, func(m *Model) bool {
			return m.overlayScroll == max(0, len(m.warningLines())-(8-warningsHead))
		}},
		{"tools scrolled past their end", 80, 8, []string{"T", "pgdown", "pgdown", "pgdown"}, func(m *Model) bool {
			return m.sess.overlayScroll > 0 && m.sess.overlayScroll == len(m.sess.toolsLines())-(8-1)
		}},
		{"the context chart does not scroll", 80, 24, []string{"C", "pgdown", "j"}, func(m *Model) bool { return m.sess.overlayScroll == 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, demoData(t), "harness-rs-0.0.40", tt.w, tt.h, "dark")
			press(t, m, tt.keys...)
			before := state(m)
			screen(m)
			if after := state(m); after != before {
				t.Errorf("View changed the model:\n before %s\n after  %s", before, after)
			}
			if !tt.ok(m) {
				t.Errorf("not kept within the content: %s", before)
			}
		})
	}
}

// TestCallColumnFitsLargestIndex: call numbers from 10,000 on are shown
// whole, not cut to "1000…".
func TestCallColumnFitsLargestIndex(t *testing.T) {
	var b strings.Builder
	for range 10_001 {
		b.WriteString(`{"role":"assistant","model":"claude-sonnet-4-5","content":"ok"}` + "\n")
	}
	m := newModel(t, []byte(b.String()), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "G")
	last := len(m.sess.session.Calls) - 1
	if last != 10_000 {
		t.Fatalf("%d calls, want 10,001", last+1)
	}
	lines := strings.Split(ansi.Strip(screen(m)), "\n")
	row := lines[m.sess.table.top0+1+m.sess.table.cursor-m.sess.table.offset]
	if !strings.HasPrefix(row, fmt.Sprintf(" %d ", last)) {
		t.Errorf("the last call's row does not start with its index %d: %q", last, row)
	}
}

// TestKeyHintColoursFromTheme: the footer's key hints are drawn in the
// theme's own colours, in every theme with colour.
func TestKeyHintColoursFromTheme(t *testing.T) {
	for _, p := range []themes.Palette{themes.Dark, themes.Light, themes.HighContrast} {
		t.Run(p.Name, func(t *testing.T) {
			m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, p.Name)
			lines := strings.Split(screen(m), "\n")
			hint := lines[len(lines)-1]
			for _, c := range []color.Color{p.Fg, p.Muted, p.Faint} {
				sgr, _, _ := strings.Cut(lipgloss.NewStyle().Foreground(c).Render("x"), "x")
				sgr = strings.TrimSuffix(strings.TrimPrefix(sgr, "\x1b["), "m")
				if !strings.Contains(hint, sgr) {
					t.Errorf("the key hints do not use the palette's %s (%q): %q", fmt.Sprint(c), sgr, hint)
				}
			}
		})
	}
}

// TestCopiesShownAsCopies: a fork's replay of its parent's usage is shown
// as a copy, in the row and the detail pane, and left out of the footer's
// totals: only the fork's own call, 90 uncached, 10 cached and 20 output
// tokens of gpt-5.2, $0.000439, is counted.
func TestCopiesShownAsCopies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "codex", "family", "rollout-2026-05-12T08-03-00-F.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, data, "harness-rs-0.0.50", 120, 30, "dark")
	out := ansi.Strip(screen(m))
	lines := strings.Split(out, "\n")
	row := func(call string) string {
		for _, l := range lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == call {
				return l
			}
		}
		return ""
	}
	for _, call := range []string{"0", "1"} {
		if !strings.Contains(row(call), "copy") {
			t.Errorf("call %s is not shown as a copy:\n%s", call, out)
		}
	}
	if strings.Contains(row("2"), "copy") {
		t.Errorf("the fork's own call is shown as a copy:\n%s", out)
	}
	if !strings.Contains(out, "a copy: session P counts this response; added to no total here") {
		t.Errorf("the detail pane does not say whose response call 0 is:\n%s", out)
	}
	if !strings.Contains(out, "tokens 100 → 100 · cost $0.0004 → $0.0004") {
		t.Errorf("the footer does not count only the fork's own call:\n%s", out)
	}
}

// TestStatesEnd: a file that is not a transcript, or is empty, says so and
// leaves nothing "computing"; a followed file read again from its start
// that holds no session yet clears the old rows, with a notice.
func TestStatesEnd(t *testing.T) {
	for name, data := range map[string][]byte{"not a transcript": []byte("hello\nworld\n"), "empty": {}} {
		m := newModel(t, data, "harness-rs-0.0.50", 100, 20, "dark")
		out := ansi.Strip(screen(m))
		if strings.Contains(out, "computing…") || !strings.Contains(out, "savings by ceiling: no session to chart") || !strings.Contains(out, "spillway: demo.jsonl") {
			t.Errorf("%s: the screen does not end in the error:\n%s", name, out)
		}
	}
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 100, 30, "dark")
	send(t, m, toSess(m, followMsg{id: m.sess.followID, update: transcript.Update{Path: "demo.jsonl", Restarted: transcript.RestartTruncated}}))
	out := ansi.Strip(screen(m))
	if strings.Contains(out, "replaying…") || strings.Contains(out, "Read") || !strings.Contains(out, "the file holds no session now; waiting for its first lines") {
		t.Errorf("a file truncated to nothing keeps its old rows:\n%s", out)
	}
}

// TestFollowedFolderNamesItsFile: following a folder, the header names
// the session file being followed, not the folder.
func TestFollowedFolderNamesItsFile(t *testing.T) {
	dir := t.TempDir()
	pol, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Source: Source{Name: dir, Path: dir}, Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark"})
	leaveAtEnd(t, m)
	send(t, m, tea.WindowSizeMsg{Width: 100, Height: 20})
	s, err := transcript.Read(bytes.NewReader(demoData(t)), filepath.Join(dir, "proj", "sess.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	send(t, m, toSess(m, followMsg{id: m.sess.followID, update: transcript.Update{Path: s.Path, Session: s}}))
	if out := ansi.Strip(screen(m)); !strings.HasPrefix(out, "spillway · sess.jsonl") {
		t.Errorf("the header does not name the followed file:\n%s", out)
	}
}

// TestFollowErrorGoes: a problem the follower had (a file it could not
// open for a while) leaves the footer once an update comes without it.
func TestFollowErrorGoes(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 100, 30, "dark")
	s := m.sess.session
	send(t, m, toSess(m, followMsg{id: m.sess.followID, update: transcript.Update{Path: s.Path, Session: s,
		Err: errors.New("open demo.jsonl: permission denied")}}))
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "permission denied") {
		t.Fatalf("the follower's problem is not shown:\n%s", out)
	}
	send(t, m, toSess(m, followMsg{id: m.sess.followID, update: transcript.Update{Path: s.Path, Session: s}}))
	if out := ansi.Strip(screen(m)); strings.Contains(out, "permission denied") {
		t.Errorf("the follower's problem stays once it is gone:\n%s", out)
	}
}

// TestToolsColumnAt80: at 80 columns the time is dropped before the
// tools, and the tools get what the other columns leave: 80 less the
// call (5), marks (5), cost (17), Δ tokens (9), prompt (15) and results
// (8) columns and the six spaces between the seven, 15 cells, room for
// "Read,Grep,Bash" whole.
func TestToolsColumnAt80(t *testing.T) {
	use := func(id, name string) map[string]any {
		return map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{"command": "x"}}
	}
	result := func(id string) map[string]any {
		return map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}
	}
	data := jsonLines([]map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-02T03:04:05Z", "message": map[string]any{"role": "user", "content": "look"}},
		{"type": "assistant", "uuid": "a1", "sessionId": "s", "requestId": "r1", "timestamp": "2026-01-02T03:04:06Z", "message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5",
			"content":     []any{use("t1", "Read"), use("t2", "Grep"), use("t3", "Bash")},
			"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "sessionId": "s", "timestamp": "2026-01-02T03:04:07Z", "message": map[string]any{"role": "user", "content": []any{result("t1"), result("t2"), result("t3")}}},
		{"type": "assistant", "uuid": "a2", "sessionId": "s", "requestId": "r2", "timestamp": "2026-01-02T03:04:08Z", "message": map[string]any{"id": "m2", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "done"}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 100, "output_tokens": 5}}},
	})
	m := newModel(t, data, "claude-code", 80, 24, "dark")
	lines := strings.Split(ansi.Strip(screen(m)), "\n")
	head := lines[m.sess.table.top0]
	if !strings.HasSuffix(strings.TrimRight(head, " "), " results tools") || strings.Contains(head, "time") || !strings.Contains(head, " cause ") {
		t.Errorf("title line %q, want it to end in the results and tools columns, without the time, with the cause", head)
	}
	var tools column
	for _, c := range m.sess.table.columns() {
		if c.title == "tools" {
			tools = c
		}
	}
	// What the fixed columns leave: 80 less 73 (the columns and their spaces).
	if tools.width != 7 {
		t.Errorf("tools column %d cells wide, want 7", tools.width)
	}
	if row := lines[m.sess.table.top0+1]; !strings.HasSuffix(row, " Read,G…") {
		t.Errorf("call 0's row %q, want it to end in its tools", row)
	}
}

// TestCompactionAfterLastCall: a compaction that no call has followed yet
// shows as the table's last row, below the last call, when the table
// scrolls to it.
func TestCompactionAfterLastCall(t *testing.T) {
	var lines []map[string]any
	for i := range 40 {
		lines = append(lines,
			map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", i), "sessionId": "s", "message": map[string]any{"role": "user", "content": "go on"}},
			map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "sessionId": "s", "requestId": fmt.Sprintf("r%d", i), "message": map[string]any{
				"id": fmt.Sprintf("m%d", i), "model": "claude-sonnet-4-5", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "stop_reason": "end_turn",
				"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5}}})
	}
	lines = append(lines, map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "c1", "sessionId": "s",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 155_000}})
	m := newModel(t, jsonLines(lines), "claude-code", 80, 24, "dark")
	press(t, m, "G")
	rows := strings.Split(ansi.Strip(m.sess.table.View()), "\n")
	if n := len(rows); n < 3 || !strings.HasPrefix(rows[n-2], "   39 ") || !strings.HasPrefix(rows[n-1], "── compaction (auto) · 155,000 tokens before · earlier results leave the") {
		t.Errorf("the table's last rows are not call 39 and the compaction after it:\n%s", strings.Join(rows, "\n"))
	}
	if m.sess.currentCall() != 39 {
		t.Errorf("call %d selected, want 39", m.sess.currentCall())
	}
}

// TestEnterOnWarning: enter on a warning selects the call whose rows its
// line is filed under and closes the list; on a line of no call, the list
// stays.
func TestEnterOnWarning(t *testing.T) {
	turn := func(i int) []map[string]any {
		return []map[string]any{
			{"type": "user", "uuid": fmt.Sprintf("u%d", i), "sessionId": "s", "message": map[string]any{"role": "user", "content": "go on"}},
			{"type": "assistant", "uuid": fmt.Sprintf("a%d", i), "sessionId": "s", "requestId": fmt.Sprintf("r%d", i), "message": map[string]any{
				"id": fmt.Sprintf("m%d", i), "model": "claude-sonnet-4-5", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "stop_reason": "end_turn",
				"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 100, "output_tokens": 5}}},
		}
	}
	// Lines 1 to 4 are calls 0 and 1; line 5, a result for no call, is
	// filed under call 1; lines 6 and 7 are call 2; line 8, a kind of
	// record the reader skips.
	lines := append(turn(0), turn(1)...)
	lines = append(lines, map[string]any{"type": "user", "uuid": "x", "sessionId": "s", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "nowhere", "content": "late"}}}})
	lines = append(lines, turn(2)...)
	lines = append(lines, map[string]any{"type": "kind-x", "uuid": "k", "sessionId": "s"})
	m := newModel(t, jsonLines(lines), "claude-code", 100, 20, "dark")
	entries := m.warningEntries()
	if len(entries) != 2 || !strings.HasPrefix(entries[0].text, "line 5: ") || entries[0].call != 1 || entries[1].call != -1 {
		t.Fatalf("warnings %+v, want line 5's under call 1, then the skipped record's under none", entries)
	}
	press(t, m, "W", "j", "enter")
	if head := strings.Split(ansi.Strip(screen(m)), "\n")[0]; m.overlay != warningsOverlay || m.sess.currentCall() != 0 || head != "warnings · this line belongs to no call" {
		t.Errorf("enter on the skipped records: overlay %v, call %d, head %q; want the list open saying why, call 0 still", m.overlay, m.sess.currentCall(), head)
	}
	press(t, m, "k", "enter")
	if m.overlay != noOverlay || m.sess.currentCall() != 1 {
		t.Errorf("enter on line 5's warning: overlay %v, call %d; want the list closed, call 1", m.overlay, m.sess.currentCall())
	}
}

// TestResultWarningCall: a replay warning belongs to the call after which
// its result came back, found by the result's index and own warning.
func TestResultWarningCall(t *testing.T) {
	rp := &replay.Run{Results: []replay.Result{
		{Index: 0, Arrival: 0},
		{Index: 1, Arrival: 3, Warning: "spill file not written (disk full); truncated instead"},
		{Index: 11, Arrival: 7, Warning: "spill file not written (disk full); truncated instead"},
	}}
	tests := []struct {
		warning string
		want    int
	}{
		{"result 1 (Bash): spill file not written (disk full); truncated instead", 3},
		{"result 11 (Read): spill file not written (disk full); truncated instead", 7},
		{"result 0 (Read): spill file not written (disk full); truncated instead", -1}, // result 0 has no warning
		{"something else", -1},
	}
	for _, tt := range tests {
		if got := resultWarningCall(rp, tt.warning); got != tt.want {
			t.Errorf("resultWarningCall(%q) = %d, want %d", tt.warning, got, tt.want)
		}
	}
}

// TestWarningsHeadAfterNotice: the warnings list opens with its own keys
// in its head, not a notice left from the key before it.
func TestWarningsHeadAfterNotice(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.50", 100, 30, "dark")
	press(t, m, "o")
	if m.ctx.notice == "" {
		t.Fatal("sorting left no notice to test with")
	}
	press(t, m, "W")
	if head := strings.SplitN(ansi.Strip(screen(m)), "\n", 2)[0]; !strings.Contains(head, "enter goes to its call") {
		t.Errorf("the warnings head is %q, want its keys", head)
	}
}

// TestFollowedStatesEnd: a followed file's first update that finds no
// session ends the loading: an empty file says it waits for its first
// lines, one whose lines hold no session yet says so, and neither stays at
// "reading…" or "computing…". Bytes still to read show as progress.
func TestFollowedStatesEnd(t *testing.T) {
	tests := []struct {
		name   string
		update transcript.Update
		want   string
		folder bool
	}{
		{"empty", transcript.Update{Path: "new.jsonl"}, "the file holds no session now; waiting for its first lines", false},
		{"no record yet", transcript.Update{Path: "new.jsonl", Offset: 5, Size: 5},
			"the file holds no session yet: none of its 5 bytes is a record of a known format; waiting for more lines", false},
		{"still reading", transcript.Update{Path: "new.jsonl", Offset: 0, Size: 4000}, "reading ░", false},
		{"empty folder", transcript.Update{Path: "new.jsonl"}, "the folder holds no session yet; waiting for one to be written", true},
	}
	pol, err := policy.Preset("harness-rs-0.0.50")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New(Options{Source: Source{Name: "new.jsonl", Path: "new.jsonl", Folder: tt.folder}, Policy: pol, Prices: pricing.Default(), Counter: counter, Theme: "dark"})
			leaveAtEnd(t, m)
			send(t, m, tea.WindowSizeMsg{Width: 120, Height: 30})
			send(t, m, toSess(m, followMsg{id: m.sess.followID, update: tt.update}))
			out := ansi.Strip(screen(m))
			if !strings.Contains(out, tt.want) {
				t.Errorf("the screen does not say %q:\n%s", tt.want, out)
			}
			if tt.name != "still reading" && (strings.Contains(out, "reading…") || strings.Contains(out, "computing…")) {
				t.Errorf("the screen still waits on the file:\n%s", out)
			}
		})
	}
}

package ui

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/transcript"
)

// oneRead is a Claude Code session on claude-sonnet-4-5 (input 3e-6,
// cache write 3.75e-6, cache read 3e-7, output 1.5e-5) whose first call
// reads a file of 80 lines of "alpha line" (880 bytes, 240 tokens, 3 a
// line) that the second call sends new, seven minutes later, past the
// five-minute cache: it reads nothing from the cache and writes all 6,003
// tokens of its prompt but 3 to it, 5,000 more than the prompt grew.
//
//	call 0: 3 × 3e-6 + 5,000 × 3.75e-6 + 5 × 1.5e-5 = $0.018834
//	call 1: 3 × 3e-6 + 6,000 × 3.75e-6 + 5 × 1.5e-5 = $0.022584
func oneRead() []byte {
	return jsonLines([]map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-01-02T03:00:00Z", "message": map[string]any{"role": "user", "content": "read it"}},
		{"type": "assistant", "uuid": "a1", "sessionId": "s", "requestId": "r1", "timestamp": "2026-01-02T03:00:05Z", "message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5",
			"content":     []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{"file_path": "/a.txt"}}},
			"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 5000, "cache_read_input_tokens": 0, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "sessionId": "s", "timestamp": "2026-01-02T03:00:06Z", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": strings.Repeat("alpha line\n", 80)},
		}}},
		// Seven minutes later: past the five-minute cache.
		{"type": "assistant", "uuid": "a2", "sessionId": "s", "requestId": "r2", "timestamp": "2026-01-02T03:07:05Z", "message": map[string]any{"id": "m2", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "text", "text": "done"}}, "stop_reason": "end_turn",
			"usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 6000, "cache_read_input_tokens": 0, "output_tokens": 5}}},
	})
}

// TestDetailCostParts: the pane splits call 1's $0.022584 as worked out
// above: its prompt grew 1,000 tokens, new context at 3.75e-6, $0.00375;
// the 5,000 written beyond that, $0.01875, are a cache rewrite; the 3
// uncached input tokens were there before, $0.000009 carried. Of its
// cache writes the 240 tokens of the result are $0.0009.
func TestDetailCostParts(t *testing.T) {
	for _, w := range []int{120, 80} {
		m := newModel(t, oneRead(), "harness-rs-0.0.40", w, 40, "dark")
		press(t, m, "j")
		got := ansi.Strip(strings.Join(m.sess.detail.lines, "\n"))
		wants := []string{
			"why $0.022584: cache rewrite, 83.0% of it", // 0.01875 / 0.022584
			"new context 1,000 $0.003750 16.6%",
			"carried 3 $0.000009 0.0%",
			"cache rewrite 5,000 $0.018750 83.0%",
			"long context – $0.000000 0.0%",
			"output 5 $0.000075 0.3%",
			"by kind: cache write $0.022500, cache read $0.000000, input $0.000009, output $0.000075",
			"tool results $0.000900: 240 tokens sent new, 0 carried", // 240 × 3.75e-6
			"7m0s after call 0; cache rewrite: 5,000 tokens written again (the prompt grew 1,000), $0.018750: the cache had expired, 7m0s being past its five minutes",
		}
		if w < sideBySideCosts {
			wants = append(wants[:1], "new context 1,000 $0.003750 16.6% · carried 3 $0.000009 0.0% · cache rewrite 5,000 $0.018750 83.0% · long context – $0.000000 0.0% · output 5 $0.000075 0.3%")
		}
		flat := strings.Join(strings.Fields(strings.ReplaceAll(got, "│", " ")), " ")
		for _, want := range wants {
			if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
				t.Errorf("%d columns: no %q in\n%s", w, want, got)
			}
		}
		// The cause column: the one costliest call of two (⌈2/20⌉) is marked.
		if ci := m.sess.table.info; ci[0].cause != replay.CauseNewContext || ci[1].cause != replay.CauseCacheRewrite || ci[0].costly || !ci[1].costly {
			t.Errorf("%d columns: causes %q %q, costly %v %v", w, ci[0].cause, ci[1].cause, ci[0].costly, ci[1].costly)
		}
	}
}

// TestCostliestCalls marks ⌈n/20⌉ of n priced calls, never an unpriced
// call or a copy of another session's response.
func TestCostliestCalls(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		n    int
		want []int
	}{{1, []int{0}}, {20, []int{19}}, {21, []int{20, 19}}, {41, []int{40, 39, 38}}} {
		info := make([]callInfo, tt.n+2)
		for i := range tt.n {
			info[i].cost = usd(float64(i + 1)) // call i costs $(i+1)
		}
		info[tt.n+1].cost, info[tt.n+1].copied = usd(1e6), true // a copy: not counted
		var got []int
		marked := costliestCalls(info)
		for i := len(marked) - 1; i >= 0; i-- {
			if marked[i] {
				got = append(got, i)
			}
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%d priced calls: marked %v, want %v", tt.n, got, tt.want)
		}
	}
}

// TestToolsView: Read's 240 tokens, sent new at call 1, cost 240 ×
// 3.75e-6 = $0.0009, 2.2% of the session's $0.041418; the policy keeps it.
func TestToolsView(t *testing.T) {
	m := newModel(t, oneRead(), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "T")
	out := ansi.Strip(screen(m))
	for _, want := range []string{
		"Read      1     $0.0009→$0.0009   2.2%→2.2%      0     880B→880B        240→240       0",
		"all tools 1     $0.0009→$0.0009   2.2%→2.2%      0     880B→880B        240→240       0",
		"of the session's cost $0.0414 → $0.0414",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	press(t, m, "T")
	if m.sess.overlay != noOverlay {
		t.Errorf("T again leaves overlay %v", m.sess.overlay)
	}
}

// TestBucketCalls spreads calls over columns by hand.
func TestBucketCalls(t *testing.T) {
	p := contextPoints{before: []int64{10, 40, 20, 30}, after: []int64{5, 40, 10, 30}, compactionBefore: []bool{false, false, true, false, true}}
	// A third as many calls as columns: three columns a call, the last a
	// gap, the compaction on call 2's first, one after the last in a column
	// of its own.
	got := bucketCalls(p, 13)
	want := []contextColumn{{10, 5, false}, {10, 5, false}, {0, 0, false}, {40, 40, false}, {40, 40, false}, {0, 0, false},
		{20, 10, true}, {20, 10, false}, {0, 0, false}, {30, 30, false}, {30, 30, false}, {0, 0, false}, {0, 0, true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("13 columns: %v, want %v", got, want)
	}
	// Between a third as many calls as columns and as many: one or two
	// columns each, over the whole width.
	// Column x shows call x×4/6: 0, 0, 1, 2, 2, 3.
	got = bucketCalls(p, 6)
	want = []contextColumn{{10, 5, false}, {10, 5, false}, {40, 40, false}, {20, 10, true}, {20, 10, false}, {30, 30, true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("6 columns: %v, want %v", got, want)
	}
	// More calls than columns: the largest of each pair.
	got = bucketCalls(p, 2)
	want = []contextColumn{{40, 40, false}, {30, 30, true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("2 columns: %v, want %v", got, want)
	}
	// A bar of half the peak fills half of a 4-row chart: 16 of 32 eighths.
	for floor, want := range map[int64]int{0: 8, 8: 8, 16: 0, 24: 0} {
		if got := eighthsIn(50, 100, 4, floor); got != want {
			t.Errorf("eighths above %d: %d, want %d", floor, got, want)
		}
	}
	if got := eighthsIn(30, 100, 4, 8); got != 2 { // 9.6 → 10 eighths, 2 above the first row
		t.Errorf("30 of 100 on 4 rows: %d eighths in the second row, want 2", got)
	}
}

// TestContextWindow places the window's line and the chart's top by hand.
func TestContextWindow(t *testing.T) {
	for _, tt := range []struct {
		peak, window, top int64
	}{
		{54_774, 200_000, 200_000},  // within 4× the peak: the top
		{50_000, 1_050_000, 50_000}, // 21× the peak: above the chart
		{300_000, 200_000, 300_000}, // below the peak: the peak stays the top
		{50_000, 0, 50_000},         // unknown
	} {
		if got := chartTop(tt.peak, tt.window); got != tt.top {
			t.Errorf("peak %d, window %d: top %d, want %d", tt.peak, tt.window, got, tt.top)
		}
	}
	// Row r of a 10-row chart holds values above (9−r)/10 of the top up
	// to (10−r)/10: 200k of 200k is row 0, 100k row 5, 150k (7.5 rows up)
	// row 2, 200k of 300k (6.67 rows up) row 3.
	for _, tt := range []struct {
		window, top int64
		row         int
	}{{200_000, 200_000, 0}, {100_000, 200_000, 5}, {150_000, 200_000, 2}, {200_000, 300_000, 3}, {1, 300_000, 9}} {
		if got := windowRow(tt.window, tt.top, 10); got != tt.row {
			t.Errorf("window %d of %d: row %d, want %d", tt.window, tt.top, got, tt.row)
		}
	}
	// claude-opus-4-5's window of 200,000 is within four times a peak of
	// 3 + 60,000 tokens, so it tops the chart: its line is the first row,
	// and the peak fills 60,003 / 200,000 = 30.0% of it.
	big := bytes.ReplaceAll(oneRead(), []byte(`"claude-sonnet-4-5"`), []byte(`"claude-opus-4-5"`))
	big = bytes.ReplaceAll(big, []byte(`"cache_creation_input_tokens":6000`), []byte(`"cache_creation_input_tokens":60000`))
	m := newModel(t, big, "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "C")
	out := ansi.Strip(screen(m))
	if !strings.Contains(out, "┄ claude-opus-4-5's context window 200.0k; the peak fills 30.0% of it") {
		t.Errorf("window legend missing:\n%s", out)
	}
	if lines := strings.Split(out, "\n"); len(lines) < 2 || !strings.HasPrefix(lines[1], "200.0k ┤┄┄┄") {
		t.Errorf("the window's line is not the top row:\n%s", out)
	}
	// claude-sonnet-4 has no window in the table: the legend says so.
	data := bytes.ReplaceAll(oneRead(), []byte(`"claude-sonnet-4-5"`), []byte(`"claude-sonnet-4"`))
	m = newModel(t, data, "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "C")
	if out := ansi.Strip(screen(m)); !strings.Contains(out, "no context window in the price table for claude-sonnet-4: no line") || strings.Contains(out, "┄") {
		t.Errorf("no window:\n%s", out)
	}
}

// TestContextChart: the demo's peak is call 12's recorded prompt, 54,774
// tokens (3 + 1,849 + 52,922), 34,452 under the policy; one compaction.
func TestContextChart(t *testing.T) {
	m := newModel(t, demoData(t), "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "C")
	out := ansi.Strip(screen(m))
	if !strings.Contains(out, "as recorded, peak 54.8k at call 12 · █ under harness-rs-0.0.40, peak 34.5k · ▲ 1 compaction(s)") {
		t.Errorf("legend missing:\n%s", out)
	}
	// claude-sonnet-4-5's window of 1,000,000 is 18.3 times the peak:
	// drawn to it the bars would be too short, so the legend says where it is.
	if !strings.Contains(out, "┄ claude-sonnet-4-5's context window 1.00M is 18× the peak: above the chart") || strings.Contains(out, "┤┄") {
		t.Errorf("window legend missing:\n%s", out)
	}
	checkSize(t, screen(m), 120, 40)
	press(t, m, "esc")
	if m.sess.overlay != noOverlay {
		t.Errorf("esc leaves overlay %v", m.sess.overlay)
	}
}

// TestCopy puts the selected result's recorded text on the clipboard.
func TestCopy(t *testing.T) {
	m := newModel(t, oneRead(), "harness-rs-0.0.40", 120, 40, "dark")
	_, cmd := m.Update(keyMsg("y"))
	want := tea.SetClipboard(strings.Repeat("alpha line\n", 80))()
	if !yields(cmd, want) {
		t.Errorf("y does not set the clipboard to the result's text")
	}
	if !strings.HasPrefix(m.ctx.notice, "copied result 0's text as recorded, 880B, to the clipboard") {
		t.Errorf("notice %q", m.ctx.notice)
	}
}

// yields tells whether cmd, or a command of its batch, returns msg.
func yields(cmd tea.Cmd, msg tea.Msg) bool {
	if cmd == nil {
		return false
	}
	got := cmd()
	if batch, ok := got.(tea.BatchMsg); ok {
		for _, c := range batch {
			if yields(c, msg) {
				return true
			}
		}
		return false
	}
	return reflect.DeepEqual(got, msg)
}

// TestPager writes the result, escaped, for $PAGER with its arguments, and
// removes the file once the pager quits.
func TestPager(t *testing.T) {
	t.Setenv("PAGER", "mypager -R")
	var args []string
	var shown string
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		args = c.Args
		data, _ := os.ReadFile(c.Args[len(c.Args)-1])
		shown = string(data)
		return func() tea.Msg { return fn(nil) }
	}
	defer func() { execProcess = tea.ExecProcess }()
	text := "plain\n\x1b]52;c;ZXZpbA==\x07 and \x1b[31mred\n"
	data := jsonLines([]map[string]any{
		{"type": "user", "uuid": "u1", "sessionId": "s", "message": map[string]any{"role": "user", "content": "go"}},
		{"type": "assistant", "uuid": "a1", "sessionId": "s", "requestId": "r1", "message": map[string]any{"id": "m1", "model": "claude-sonnet-4-5",
			"content":     []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{"command": "x"}}},
			"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 0, "output_tokens": 5}}},
		{"type": "user", "uuid": "u2", "sessionId": "s", "message": map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": text}}}},
	})
	m := newModel(t, data, "harness-rs-0.0.40", 120, 40, "dark")
	press(t, m, "O")
	if len(args) != 3 || args[0] != "mypager" || args[1] != "-R" {
		t.Fatalf("pager run as %q", args)
	}
	want := "result 0 · Bash\n\nplain\n\\x1b]52;c;ZXZpbA==\\x07 and \\x1b[31mred\n"
	if shown != want {
		t.Errorf("the pager shows %q, want %q", shown, want)
	}
	if _, err := os.Stat(args[2]); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", args[2], err)
	}
}

// TestMCPServers sums each server's tools, unknown tokens staying unknown.
func TestMCPServers(t *testing.T) {
	tools := []replay.ToolTotals{
		{Tool: "mcp__gh__issue", Server: "gh", Results: 2, Bytes: 100, BytesAfter: 50, Tokens: 30, TokensAfter: 10, Shaped: 1, CarryCost: 0.5, CarryCostAfter: 0.2},
		{Tool: "Read", Results: 9, Bytes: 1000, Tokens: 300},
		{Tool: "mcp__db__query", Server: "db", Results: 1, Bytes: 7, BytesAfter: 7, Tokens: -1, TokensAfter: -1},
		{Tool: "mcp__gh__pr", Server: "gh", Results: 1, Bytes: 20, BytesAfter: 20, Tokens: 5, TokensAfter: 5, Suppressed: 1, CarryCost: 0.25, CarryCostAfter: 0.25},
	}
	want := []replay.ToolTotals{
		{Server: "gh", Results: 3, Bytes: 120, BytesAfter: 70, Tokens: 35, TokensAfter: 15, Shaped: 1, Suppressed: 1, CarryCost: 0.75, CarryCostAfter: 0.45},
		{Server: "db", Results: 1, Bytes: 7, BytesAfter: 7, Tokens: -1, TokensAfter: -1},
	}
	if got := mcpServers(tools); !reflect.DeepEqual(got, want) {
		t.Errorf("servers %+v\nwant %+v", got, want)
	}
}

// TestPauseLine names why a call wrote its cache again or starts a new
// context (after a compaction or on another model), by hand on
// claude-sonnet-4-5 (cache write 3.75e-6, one-hour 6e-6): the previous
// call's prompt is 10,003 tokens, this one's 11,003 (1,000 more), and
// 9,000 were written, so 8,000 were written again: 8,000 × 3.75e-6 =
// $0.030000.
func TestPauseLine(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	const model = "claude-sonnet-4-5"
	prev := transcript.Call{Model: model, Time: at, Usage: &transcript.Usage{Input: 3, CacheCreation: 1000, CacheRead: 9000}}
	rewrite := transcript.Usage{Input: 3, CacheCreation: 9000, CacheRead: 2000}
	head := "1m0s after call 0; cache rewrite: 8,000 tokens written again (the prompt grew 1,000), $0.030000: "
	for _, tt := range []struct {
		name string
		call transcript.Call
		want string
	}{
		{"prefix changed", transcript.Call{Model: model, Time: at.Add(time.Minute), Usage: &rewrite},
			head + "the prompt changed after its first 2,000 tokens, those read from the cache, within the cache's five minutes"},
		// 11,000 written, 1,000 of them growth: 10,000 × 3.75e-6 = $0.037500.
		{"nothing read", transcript.Call{Model: model, Time: at.Add(time.Minute), Usage: &transcript.Usage{Input: 3, CacheCreation: 11000}},
			"1m0s after call 0; cache rewrite: 10,000 tokens written again (the prompt grew 1,000), $0.037500: the prompt changed from its start, none of it read from the cache, within the cache's five minutes"},
		{"model changed", transcript.Call{Model: "claude-sonnet-4-5-20250929", Time: at.Add(time.Minute), Usage: &rewrite},
			"1m0s after call 0; the model changed from claude-sonnet-4-5, and each model has a cache of its own: a new context, its whole prompt new"},
		{"compaction", transcript.Call{Model: model, Segment: 1, Time: at.Add(time.Minute), Usage: &rewrite},
			"1m0s after call 0; a compaction came between: a new context, its whole prompt new"},
		{"expired", transcript.Call{Model: model, Time: at.Add(6 * time.Minute), Usage: &rewrite},
			"6m0s after call 0; cache rewrite: 8,000 tokens written again (the prompt grew 1,000), $0.030000: the cache had expired, 6m0s being past its five minutes"},
		// 8,000 × 6e-6 = $0.048000.
		{"an hour's cache", transcript.Call{Model: model, Time: at.Add(6 * time.Minute), Usage: &transcript.Usage{Input: 3, CacheCreation: 9000, CacheCreation1h: 9000, CacheRead: 2000}},
			"6m0s after call 0; cache rewrite: 8,000 tokens written again (the prompt grew 1,000), $0.048000: the prompt changed after its first 2,000 tokens, those read from the cache, within the cache's hour"},
		{"no rewrite: 500 written beyond the growth", transcript.Call{Model: model, Time: at.Add(time.Minute), Usage: &transcript.Usage{Input: 3, CacheCreation: 1500, CacheRead: 9500}},
			"1m0s after call 0"},
	} {
		s := &transcript.Session{Calls: []transcript.Call{prev, tt.call}}
		if tt.call.Segment > 0 {
			s.Events = []transcript.Event{{Kind: transcript.EventCompaction, BeforeCall: 1}}
		}
		prep, err := replay.Prepare(context.Background(), s, nil, pricing.Default(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := pauseLine(s, 1, 0, prep.CostParts()[1]); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestDetailCostIsTheCall: the title of every call's cost parts in a
// shared log says the call's cost as its row and report say it, where the
// parts, summed, were a micro-dollar off on a few calls ($0.078167 for
// call 2 of scout's $0.078166).
func TestDetailCostIsTheCall(t *testing.T) {
	m := newModel(t, sharedLog(t, "claude-code_scout_*.jsonl"), "harness-rs-0.0.50", 120, 40, "dark")
	rp := m.sess.replay
	for i, c := range rp.Calls {
		if c.Cost == nil {
			continue
		}
		lines, _ := m.sess.detail.costLines(rp.Prepared.Session, rp, i, false)
		if want := "why " + human.USD(c.Cost) + ":"; len(lines) == 0 || !strings.HasPrefix(ansi.Strip(lines[0]), want) {
			t.Errorf("call %d: %q, want it to open %q", i, lines, want)
		}
	}
}

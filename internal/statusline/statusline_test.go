package statusline

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// t0 is when the hand-made sessions' first call was logged.
var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// call is one response of a hand-made log: logged at t0 plus at; an at
// of -1ns leaves its time out.
type call struct {
	at        time.Duration
	u         usage
	sidechain bool
}

// session writes a Claude Code log of calls and returns its path.
func session(t *testing.T, calls ...call) string {
	t.Helper()
	var b strings.Builder
	for i, c := range calls {
		line := assistantLine("m"+itoa(int64(i)), t0.Add(c.at).Format(time.RFC3339Nano), c.u)
		if c.at == -1 {
			line = strings.Replace(line, `"timestamp":"`+t0.Add(c.at).Format(time.RFC3339Nano)+`",`, "", 1)
		}
		if c.sidechain {
			line = strings.Replace(line, `{"type":"assistant",`, `{"type":"assistant","isSidechain":true,`, 1)
		}
		b.WriteString(line)
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	write(t, path, b.String())
	return path
}

// statusInput is the JSON Claude Code would send for the log at path.
func statusInput(t *testing.T, path string, extra map[string]any) string {
	t.Helper()
	in := map[string]any{"session_id": "s1", "transcript_path": path}
	for k, v := range extra {
		in[k] = v
	}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// line runs the status line for path at time now, with no policy and no
// width bound, and returns what it printed.
func line(t *testing.T, path string, now time.Time, extra map[string]any) string {
	t.Helper()
	inert, err := policy.Preset("none")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Pipeline: app.Options{Prices: pricing.Default(), Policy: inert}, Dir: t.TempDir(),
		Now: func() time.Time { return now }, Env: app.Env{Getenv: func(string) string { return "" }}}
	var out bytes.Buffer
	Run(strings.NewReader(statusInput(t, path, extra)), &out, opt)
	return strings.TrimSuffix(out.String(), "\n")
}

// cachePart is the cache timer of a line: its last part, "" when it has
// none.
func cachePart(l string) string {
	parts := strings.Split(l, separator)
	if last := parts[len(parts)-1]; strings.HasPrefix(last, "cache ") {
		return last
	}
	return ""
}

// TestCacheTimer pins the time the prompt cache has left at each
// boundary: a call that wrote 5-minute entries leaves 5 minutes, one that
// wrote only 1-hour entries an hour, one that only read the cache the
// lifetime of the last write, counted again from the read, and a
// sub-agent's call on its sidechain none of the main chain's.
func TestCacheTimer(t *testing.T) {
	write5m := usage{input: 3, write5m: 2000, read: 10000, output: 50}
	write1h := usage{input: 3, write1h: 2000, read: 10000, output: 50}
	both := usage{input: 3, write5m: 500, write1h: 2000, read: 10000, output: 50}
	readOnly := usage{input: 3, read: 12000, output: 50}
	noCache := usage{input: 12000, output: 50}
	tests := []struct {
		name  string
		calls []call
		at    time.Duration // after t0
		want  string
	}{
		{"5m written, just after", []call{{0, write5m, false}}, 0, "cache 5m00s left"},
		{"5m written, a second left", []call{{0, write5m, false}}, 5*time.Minute - time.Second, "cache 1s left"},
		{"5m written, at the lifetime", []call{{0, write5m, false}}, 5 * time.Minute, "cache cold for 0s"},
		{"5m written, past it", []call{{0, write5m, false}}, 5*time.Minute + 90*time.Second, "cache cold for 1m30s"},
		{"5m written, a minute left", []call{{0, write5m, false}}, 4 * time.Minute, "cache 1m00s left"},
		{"1h written, ten minutes in", []call{{0, write1h, false}}, 10 * time.Minute, "cache 50m left"},
		{"1h written, a second left", []call{{0, write1h, false}}, time.Hour - time.Second, "cache 1s left"},
		{"1h written, at the lifetime", []call{{0, write1h, false}}, time.Hour, "cache cold for 0s"},
		{"1h written, long cold", []call{{0, write1h, false}}, 3 * time.Hour, "cache cold"},
		{"both written: the 5-minute entries go first", []call{{0, both, false}}, 4 * time.Minute, "cache 1m00s left"},
		{"a read refreshes a 5m write", []call{{0, write5m, false}, {4 * time.Minute, readOnly, false}}, 8 * time.Minute, "cache 1m00s left"},
		{"a read refreshes a 1h write for an hour", []call{{0, write1h, false}, {50 * time.Minute, readOnly, false}}, 100 * time.Minute, "cache 10m left"},
		{"a read keeps the last write's lifetime", []call{{0, write1h, false}, {time.Minute, write5m, false}, {2 * time.Minute, readOnly, false}}, 6 * time.Minute, "cache 1m00s left"},
		{"a read with no write before: 5 minutes", []call{{0, readOnly, false}}, 3 * time.Minute, "cache 2m00s left"},
		{"a sidechain's read refreshes nothing of the main chain", []call{{0, write5m, false}, {4 * time.Minute, readOnly, true}}, 5*time.Minute + time.Second, "cache cold for 1s"},
		{"no cache used: no timer", []call{{0, write5m, false}, {time.Minute, noCache, false}}, 2 * time.Minute, ""},
		{"before the call was logged", []call{{0, write5m, false}}, -30 * time.Second, "cache 5m30s left"},
		{"a call logged without a time: no timer", []call{{-1, write5m, false}}, time.Minute, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := line(t, session(t, tt.calls...), t0.Add(tt.at), nil)
			if c := cachePart(got); c != tt.want {
				t.Errorf("cache part %q, want %q (line %q)", c, tt.want, got)
			}
		})
	}
}

// TestLine pins a whole line: the cost priced by hand, Claude Code's own
// when it differs by more than a cent, the context against the window
// Claude Code names, or else the table's.
func TestLine(t *testing.T) {
	// claude-sonnet-4-5: $3/M input, $3.75/M 5-minute writes, $0.30/M
	// reads, $15/M output. Call 1: 3 input, 2,000 written, 10,000 read,
	// 50 output = $0.000009 + $0.0075 + $0.003 + $0.00075 = $0.011259.
	// Call 2 reads 12,000 = $0.0036 + 3 input $0.000009 + 50 output
	// $0.00075 = $0.004359. Together $0.015618.
	path := session(t, call{0, usage{input: 3, write5m: 2000, read: 10000, output: 50}, false},
		call{time.Minute, usage{input: 3, read: 12000, output: 50}, false})
	now := t0.Add(2 * time.Minute)
	// The price table gives claude-sonnet-4-5 a window of 1,000,000.
	if got, want := line(t, path, now, nil), "$0.0156 · ctx 12.0k/1.00M (1%) · cache 4m00s left"; got != want {
		t.Errorf("no figures from Claude Code:\n got %q\nwant %q", got, want)
	}
	// Claude Code's window is the one its context is held to; a cost a
	// cent apart is the same figure; more is shown beside.
	same := map[string]any{"cost": map[string]any{"total_cost_usd": 0.0256}, "context_window": map[string]any{"context_window_size": 200000}}
	if got, want := line(t, path, now, same), "$0.0156 · ctx 12.0k/200.0k (6%) · cache 4m00s left"; got != want {
		t.Errorf("Claude Code's $0.0256:\n got %q\nwant %q", got, want)
	}
	differs := map[string]any{"cost": map[string]any{"total_cost_usd": 0.0257}, "context_window": map[string]any{"context_window_size": 200000}}
	if got, want := line(t, path, now, differs), "$0.0156 · Claude Code says $0.0257 · ctx 12.0k/200.0k (6%) · cache 4m00s left"; got != want {
		t.Errorf("Claude Code's $0.0257:\n got %q\nwant %q", got, want)
	}
	// A figure that is no cost is not shown; a field of a type the line
	// does not take leaves that part out, not the line.
	for _, extra := range []map[string]any{
		{"cost": map[string]any{"total_cost_usd": -5}},
		{"cost": map[string]any{"total_cost_usd": 1e308}},
		{"cost": map[string]any{"total_cost_usd": "abc"}}, // not $0.0000
		{"cost": map[string]any{"total_cost_usd": "0.5"}},
		{"cost": map[string]any{"total_cost_usd": nil}},
		{"cost": map[string]any{"total_cost_usd": true}},
		{"cost": 0.5, "model": "claude-sonnet-4-5", "version": 2.1, "session_id": 123},
	} {
		if got, want := line(t, path, now, extra), "$0.0156 · ctx 12.0k/1.00M (1%) · cache 4m00s left"; got != want {
			t.Errorf("%v:\n got %q\nwant %q", extra, got, want)
		}
	}
}

// TestFit pins what is dropped, and in what order, as the line narrows.
// In full the parts take 5, 22, 42, 9, 23 and 16 cells and the five
// separators 15: 132. Narrower, the least important part still long takes
// its short wording (Claude Code's cost to "cc $4.25", 118; the context to
// "ctx 71%", 102; the cache to "cache 4m12s", 97; the saving to "saves
// $1.37", 66), then the least important part goes (Claude Code's cost,
// 55; the hazards, 43; the context, 33; the cache timer, 19).
func TestFit(t *testing.T) {
	cost, cc, after := 4.2137, 4.2531, 2.8412
	v := &view{Cost: cost, Recorded: 40, ClaudeUSD: &cc, Reading: 1, Policy: "claude-code+custom", Cache: true,
		Predicted: &Prediction{Cost: &cost, CostAfter: &after},
		Last:      &LastCall{Time: t0, Model: "claude-sonnet-4-5", CacheRead: 140000, CacheWrite5m: 2000, Input: 3},
		TTL:       "5m", Window: 200000, Now: t0.Add(48 * time.Second)}
	v.Predicted.Hazards.UsedHidden = 2
	for _, tt := range []struct {
		width int
		want  string
	}{
		{0, "$4.21 · Claude Code says $4.25 · saves $1.37 (33%) under claude-code+custom · 2 hazards · ctx 142.0k/200.0k (71%) · cache 4m12s left"},
		{160, "$4.21 · Claude Code says $4.25 · saves $1.37 (33%) under claude-code+custom · 2 hazards · ctx 142.0k/200.0k (71%) · cache 4m12s left"},
		{132, "$4.21 · Claude Code says $4.25 · saves $1.37 (33%) under claude-code+custom · 2 hazards · ctx 142.0k/200.0k (71%) · cache 4m12s left"},
		{131, "$4.21 · cc $4.25 · saves $1.37 (33%) under claude-code+custom · 2 hazards · ctx 142.0k/200.0k (71%) · cache 4m12s left"},
		{117, "$4.21 · cc $4.25 · saves $1.37 (33%) under claude-code+custom · 2 hazards · ctx 71% · cache 4m12s left"},
		{100, "$4.21 · cc $4.25 · saves $1.37 (33%) under claude-code+custom · 2 hazards · ctx 71% · cache 4m12s"},
		{96, "$4.21 · cc $4.25 · saves $1.37 · 2 hazards · ctx 71% · cache 4m12s"},
		{66, "$4.21 · cc $4.25 · saves $1.37 · 2 hazards · ctx 71% · cache 4m12s"},
		{65, "$4.21 · saves $1.37 · 2 hazards · ctx 71% · cache 4m12s"},
		{54, "$4.21 · saves $1.37 · ctx 71% · cache 4m12s"},
		{42, "$4.21 · saves $1.37 · cache 4m12s"},
		{32, "$4.21 · saves $1.37"},
		{18, "$4.21"},
		{3, "$4…"},
	} {
		got := v.render(tt.width, nil)
		if got != tt.want {
			t.Errorf("width %d:\n got %q\nwant %q", tt.width, got, tt.want)
		}
		if tt.width > 0 && len([]rune(got)) > tt.width {
			t.Errorf("width %d: %d cells", tt.width, len([]rune(got)))
		}
	}
}

// failCase is input that goes wrong, the line it gives and what the log
// says of it.
type failCase struct{ name, stdin, want, logged string }

// TestFailOpen: whatever goes wrong, one short plain line, and the log
// says why.
func TestFailOpen(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range append([]failCase{
		{"not JSON", "{", "spillway: no status input from Claude Code", "not Claude Code's JSON"},
		{"no transcript named", `{"session_id":"x"}`, "spillway: no status input from Claude Code", "names no transcript_path"},
		{"transcript not there yet", statusInput(t, filepath.Join(dir, "none.jsonl"), nil), "spillway: no transcript yet", "none.jsonl"},
		{"a folder", statusInput(t, dir, nil), "spillway: transcript unreadable", "is a folder, not a session's log"},
		{"not a transcript", statusInput(t, notTranscript(t), nil), "spillway: transcript unreadable", "not an agent transcript"},
	}, osFailCases(t)...) {
		t.Run(tt.name, func(t *testing.T) {
			st := t.TempDir()
			var out bytes.Buffer
			Run(strings.NewReader(tt.stdin), &out, Options{Dir: st, Pipeline: app.Options{Prices: pricing.Default()}})
			if got := strings.TrimSuffix(out.String(), "\n"); got != tt.want {
				t.Errorf("printed %q, want %q", got, tt.want)
			}
			log, _ := os.ReadFile(filepath.Join(st, "statusline.log"))
			if !strings.Contains(string(log), tt.logged) {
				t.Errorf("log %q does not say %q", log, tt.logged)
			}
		})
	}
	t.Run("endless input", func(t *testing.T) {
		st := t.TempDir()
		var out bytes.Buffer
		Run(endless{}, &out, Options{Dir: st})
		if got := out.String(); got != "spillway: no status input from Claude Code\n" {
			t.Errorf("printed %q", got)
		}
		if log, _ := os.ReadFile(filepath.Join(st, "statusline.log")); !bytes.Contains(log, []byte("over 1 MiB")) {
			t.Errorf("log %q", log)
		}
	})
	t.Run("panic", func(t *testing.T) {
		st := t.TempDir()
		var out bytes.Buffer
		Run(strings.NewReader("{}"), &out, Options{Dir: st, Now: func() time.Time { panic("boom") }})
		if got := out.String(); got != "spillway: internal error (logged)\n" {
			t.Errorf("printed %q", got)
		}
		if log, _ := os.ReadFile(filepath.Join(st, "statusline.log")); !bytes.Contains(log, []byte("panic: boom")) {
			t.Errorf("log %q", log)
		}
	})
}

// endless is standard input that never ends.
type endless struct{}

func (endless) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = ' '
	}
	return len(b), nil
}

func notTranscript(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "notes.jsonl")
	write(t, path, "just text\nnot json at all\n")
	return path
}

// TestHostile: names from the input and the log reach the line escaped.
func TestHostile(t *testing.T) {
	path := session(t, call{0, usage{input: 3, read: 12000, output: 50}, false})
	data, _ := os.ReadFile(path)
	write(t, path, strings.ReplaceAll(string(data), "claude-sonnet-4-5", "evil\\u001b]0;pwned\\u0007\\u001b[2J"))
	got := line(t, path, t0, map[string]any{"model": map[string]any{"display_name": "\x1b[31mred"}})
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("raw control bytes in %q", got)
	}
	if !strings.Contains(got, `no price for evil\x1b]0;pwned\x07\x1b[2J`) {
		t.Errorf("the unpriced model is not named, escaped: %q", got)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 59 * time.Second: "59s", 60 * time.Second: "1m00s",
		9*time.Minute + 59*time.Second: "9m59s", 10 * time.Minute: "10m", 61 * time.Minute: "1h01m", 1499 * time.Millisecond: "1s"} {
		if got := duration(d); got != want {
			t.Errorf("duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestPrune: a session's files are removed once nothing has drawn it for
// keepFor; the log and the files of sessions drawn since stay.
func TestPrune(t *testing.T) {
	st := store{dir: t.TempDir()}
	now := t0
	old, recent := st.statePath("old"), st.statePath("recent")
	for _, p := range []string{old, st.predictPath("old"), recent, st.logPath()} {
		write(t, p, "{}")
	}
	for _, p := range []string{old, st.predictPath("old"), st.logPath()} {
		when := now.Add(-keepFor - time.Minute)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	when := now.Add(-keepFor + time.Minute)
	if err := os.Chtimes(recent, when, when); err != nil {
		t.Fatal(err)
	}
	st.prune(now)
	for p, want := range map[string]bool{old: false, st.predictPath("old"): false, recent: true, st.logPath(): true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: there %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}

// TestStartsPrediction: the first line starts a replay and says it is
// under way; none starts while one runs or while the last is current;
// once the logs grow the line marks the saving as behind, and a new
// replay starts when the budget allows.
func TestStartsPrediction(t *testing.T) {
	path := session(t, call{0, usage{input: 3, write5m: 2000, read: 10000, output: 50}, false})
	pol, err := policy.Preset("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	now := t0
	starts := 0
	opt := Options{Pipeline: app.Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer("o200k_base")}, Dir: t.TempDir(),
		Now: func() time.Time { return now }, Env: app.Env{Getenv: func(string) string { return "" }},
		Start: func(string) error { starts++; return nil }}
	draw := func() string {
		var out bytes.Buffer
		Run(strings.NewReader(statusInput(t, path, nil)), &out, opt)
		return out.String()
	}
	if l := draw(); starts != 1 || !strings.Contains(l, "saves … (replaying under claude-code)") {
		t.Fatalf("first line %q, %d replays started", l, starts)
	}
	if draw(); starts != 1 {
		t.Fatal("a second replay started while the first runs")
	}
	if err := Predict(path, opt); err != nil { // the replay, done
		t.Fatal(err)
	}
	if l := draw(); starts != 1 || !strings.Contains(l, "saves $0.0000 (0%) under claude-code · 0 hazards") {
		t.Fatalf("after the replay: %q, %d started", l, starts)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(assistantLine("m9", t0.Add(time.Minute).Format(time.RFC3339), usage{input: 3, read: 12000, output: 50}))
	f.Close()
	if l := draw(); starts != 1 || !strings.Contains(l, "saves ~$0.0000") {
		t.Fatalf("grown, within the budget: %q, %d started", l, starts)
	}
	now = now.Add(minPredictGap)
	if draw(); starts != 2 {
		t.Fatalf("grown, past the budget: %d started", starts)
	}
}

// TestUnwritableCache: where the cache folder cannot be made (a file
// stands in its place) no replay starts, and the line says why rather
// than that one is under way.
func TestUnwritableCache(t *testing.T) {
	path := session(t, call{0, usage{input: 3, write5m: 2000, read: 10000, output: 50}, false})
	pol, err := policy.Preset("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "file")
	os.WriteFile(dir, []byte("x"), 0o600)
	starts := 0
	opt := Options{Pipeline: app.Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer("o200k_base")}, Dir: dir,
		Now: func() time.Time { return t0 }, Env: app.Env{Getenv: func(string) string { return "" }},
		Start: func(string) error { starts++; return nil }}
	var out bytes.Buffer
	Run(strings.NewReader(statusInput(t, path, nil)), &out, opt)
	if l := out.String(); starts != 0 || !strings.Contains(l, "saves ? (its cache folder cannot be written)") {
		t.Errorf("line %q, %d replays started", l, starts)
	}
}

// TestOtherLogs: a log that records no usage says so rather than $0; a
// Codex log, whose cache is OpenAI's, has no cache timer.
func TestOtherLogs(t *testing.T) {
	ag := sharedtest.Transcripts(t, "antigravity_*.jsonl")[0]
	if got := line(t, ag, t0, nil); !strings.HasPrefix(got, "no usage recorded") {
		t.Errorf("Antigravity: %q", got)
	}
	codex := sharedtest.Transcripts(t, "codex_raze_*.jsonl")[0]
	got := line(t, codex, t0, nil)
	if !strings.HasPrefix(got, "$0.8219 · ctx ") || strings.Contains(got, "cache") {
		t.Errorf("Codex: %q", got)
	}
}

// TestSubagentAppears: a sub-agent log written after the line was first
// drawn is counted from the next line on, though what was found of the
// session's logs is kept between calls.
func TestSubagentAppears(t *testing.T) {
	path := session(t, call{0, usage{input: 1000, output: 100}, false})
	opt := Options{Pipeline: app.Options{Prices: pricing.Default()}, Dir: t.TempDir(), Now: func() time.Time { return t0 },
		Env: app.Env{Getenv: func(string) string { return "" }}}
	draw := func() string {
		var out bytes.Buffer
		Run(strings.NewReader(statusInput(t, path, nil)), &out, opt)
		return strings.Split(out.String(), separator)[0]
	}
	// $3/M input, $15/M output: 1,000 and 100 are $0.0045.
	if got := draw(); got != "$0.0045" {
		t.Fatalf("before: %q", got)
	}
	if got := draw(); got != "$0.0045" {
		t.Fatalf("again: %q", got)
	}
	sub := filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-a.jsonl")
	if err := os.MkdirAll(filepath.Dir(sub), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, sub, strings.Replace(assistantLine("a1", t0.Format(time.RFC3339), usage{input: 2000, output: 300}), `{"type":"assistant",`, `{"type":"assistant","isSidechain":true,`, 1))
	// And 2,000 and 300 are $0.0105 more.
	if got := draw(); got != "$0.0150" {
		t.Errorf("with the sub-agent: %q", got)
	}
}

// TestNoCountingOnTheLine: drawing the line, even under a policy, never
// asks for the token counter (whose tables take half a second to build):
// only the replay in the background counts.
func TestNoCountingOnTheLine(t *testing.T) {
	path := session(t, call{0, usage{input: 3, write5m: 2000, read: 10000, output: 50}, false})
	pol, err := policy.Preset("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	counted := false
	opt := Options{Pipeline: app.Options{Policy: pol, Counter: func() (replay.TokenCounter, error) {
		counted = true
		return nil, errors.New("no counting here")
	}}, Dir: t.TempDir(), Now: func() time.Time { return t0 }, Env: app.Env{Getenv: func(string) string { return "" }},
		Start: func(string) error { return nil }}
	for range 2 {
		var out bytes.Buffer
		Run(strings.NewReader(statusInput(t, path, nil)), &out, opt)
		if !strings.HasPrefix(out.String(), "$0.0113 · saves … (replaying under claude-code)") {
			t.Errorf("line %q", out.String())
		}
	}
	if counted {
		t.Error("the line asked for the token counter")
	}
}

// TestFitRealized: in a session spillway's hook ran in, what it cut stays
// as long as a saving would, and whether the replay agrees goes with the
// least of the rest (as predicted) or with the hazards (where they part).
func TestFitRealized(t *testing.T) {
	cost, after, saved := 4.2137, 4.1894, 1.3702
	realized := &Realized{Totals: ledger.Totals{Results: 12, Tokens: 40_000, TokensAfter: 3_900}, SavedUSD: &saved,
		Policies: []string{"harness-rs-0.0.50"}}
	v := &view{Cost: cost, Recorded: 40, Reading: 1, Policy: "harness-rs-0.0.50",
		Predicted: &Prediction{Cost: &cost, CostAfter: &cost, Realized: realized},
		Last:      &LastCall{Time: t0, Model: "claude-sonnet-4-5", CacheRead: 140000, CacheWrite5m: 2000, Input: 3},
		Window:    200000, Now: t0.Add(48 * time.Second)}
	for _, tt := range []struct {
		width int
		want  string
	}{
		{0, "$4.21 · hook saved $1.37 on 12 results · as predicted under harness-rs-0.0.50 · 0 hazards · ctx 142.0k/200.0k (71%)"},
		{100, "$4.21 · hook saved $1.37 on 12 results · as predicted · 0 hazards · ctx 142.0k/200.0k (71%)"},
		{60, "$4.21 · hook $1.37 · as predicted · 0 hazards · ctx 71%"},
		{48, "$4.21 · hook $1.37 · 0 hazards · ctx 71%"},
		{30, "$4.21 · hook $1.37 · ctx 71%"},
	} {
		if got := v.render(tt.width, nil); got != tt.want {
			t.Errorf("width %d:\n got %q\nwant %q", tt.width, got, tt.want)
		}
	}
	// No priced call carried what was cut: its tokens (40,000 − 3,900).
	// The replay cuts 2 more results, $0.0243 off; the hook ran another
	// policy.
	realized.SavedUSD, realized.Policies = nil, []string{"harness-rs-0.0.40"}
	v.Predicted.CostAfter, v.Predicted.Acted = &after, 2
	for _, tt := range []struct {
		width int
		want  string
	}{
		{0, "$4.21 · hook cut 36.1k tokens on 12 results · ≠ predicted under harness-rs-0.0.50: the replay cuts 2 more ($0.0243), the hook ran harness-rs-0.0.40 · 0 hazards · ctx 142.0k/200.0k (71%)"},
		{80, "$4.21 · hook cut 36.1k tokens on 12 results · ≠ predicted · 0 hazards · ctx 71%"},
		{50, "$4.21 · hook −36.1k tok · ≠ predicted · ctx 71%"},
		{40, "$4.21 · hook −36.1k tok · ctx 71%"},
	} {
		if got := v.render(tt.width, nil); got != tt.want {
			t.Errorf("width %d:\n got %q\nwant %q", tt.width, got, tt.want)
		}
	}
}

// TestFitCostsMore: a policy whose replacements are longer than the
// results they replace says what it adds, never a negative saving.
func TestFitCostsMore(t *testing.T) {
	cost, after := 4.2137, 4.3412
	v := &view{Cost: cost, Recorded: 40, Reading: 1, Policy: "harness-rs-0.0.40",
		Predicted: &Prediction{Cost: &cost, CostAfter: &after},
		Last:      &LastCall{Time: t0, Model: "claude-sonnet-4-5", CacheRead: 140000, CacheWrite5m: 2000, Input: 3},
		Window:    200000, Now: t0.Add(48 * time.Second)}
	for width, want := range map[int]string{
		0:  "$4.21 · costs $0.1275 more (+3%) under harness-rs-0.0.40 · 0 hazards · ctx 142.0k/200.0k (71%)",
		40: "$4.21 · costs +$0.1275 · ctx 71%",
	} {
		if got := v.render(width, nil); got != want {
			t.Errorf("width %d:\n got %q\nwant %q", width, got, want)
		}
	}
	added := -0.0412
	v.Predicted.CostAfter = &cost
	v.Predicted.Realized = &Realized{Totals: ledger.Totals{Results: 1, Tokens: 6_305, TokensAfter: 8_196}, SavedUSD: &added,
		Policies: []string{"harness-rs-0.0.40"}}
	if got, want := v.render(0, nil), "$4.21 · hook added $0.0412 on 1 result · as predicted under harness-rs-0.0.40 · 0 hazards · ctx 142.0k/200.0k (71%)"; got != want {
		t.Errorf("realized:\n got %q\nwant %q", got, want)
	}
	v.Predicted.Realized.SavedUSD = nil
	if got, want := v.render(0, nil), "$4.21 · hook added 1,891 tokens on 1 result · as predicted under harness-rs-0.0.40 · 0 hazards · ctx 142.0k/200.0k (71%)"; got != want {
		t.Errorf("realized, no price:\n got %q\nwant %q", got, want)
	}
	// The replay would shape 2 more results, each longer than before; the
	// prediction predates the latest calls (~, before the sign).
	v.Predicted.CostAfter, v.Predicted.Acted, v.Stale = &after, 2, true
	if got, want := v.render(0, nil), "$4.21 · hook added ~1,891 tokens on 1 result · ≠ predicted under harness-rs-0.0.40: the replay cuts 2 more (costing $0.1275 more) · 0 hazards · ctx 142.0k/200.0k (71%)"; got != want {
		t.Errorf("the replay cuts more:\n got %q\nwant %q", got, want)
	}
	if got, want := v.render(40, nil), "$4.21 · hook ~+1,891 tok · ctx 71%"; got != want {
		t.Errorf("stale, short:\n got %q\nwant %q", got, want)
	}
	v.Predicted.Realized = nil
	if got, want := v.render(40, nil), "$4.21 · costs ~+$0.1275 · ctx 71%"; got != want {
		t.Errorf("stale saving, short:\n got %q\nwant %q", got, want)
	}
}

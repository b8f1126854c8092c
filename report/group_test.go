package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
)

// byFixture holds three sessions:
//
//	s1 (Claude Code, cwd /home/dev/shop, folder -home-dev-shop):
//	  A 2026-03-01T23:30Z claude-sonnet-4-5 1,000 in, 100 out        $0.004500
//	  B 2026-03-02T00:30Z claude-sonnet-4-5 2,000 in, 200 out, 10,000 cache read
//	                      $0.006000 + $0.003000 + $0.003000 =     $0.012000
//	  C 2026-03-02T01:00Z claude-opus-4-9 (no price) 10 in, 10 out     unknown
//	  and its sub-agent x:
//	  X 2026-03-02T00:45Z claude-sonnet-4-5 100 in, 10 out            $0.000450
//	s2 (Claude Code, no cwd, folder -home-dev-blog):
//	  D 2026-03-08T12:00Z claude-haiku-4-5 1,000 in, 1,000 out        $0.006000
//	    with its advisor on claude-opus-4-6 100 in, 10 out           $0.000750
//	c1 (Codex, cwd /home/dev/shop):
//	  E 2026-03-02T10:00Z gpt-5.2 1,000 in of which 200 cached, 100 out
//	    $0.001400 + $0.000035 + $0.001400 =                         $0.002835
//
// at $3/$15/$0.30 (sonnet-4-5), $1/$5 (haiku-4-5), $5/$25 (opus-4-6) and
// $1.75/$14/$0.175 (gpt-5.2) per million input/output/cache-read tokens.
var byFixture = filepath.Join("testdata", "by")

type wantGroup struct {
	key             string
	sessions, calls int
	in, out, cr     int64
	cost            float64 // < 0: unknown
}

func (w wantGroup) check(t *testing.T, g Group) {
	t.Helper()
	rec := Tokens{Input: w.in, Output: w.out, CacheRead: w.cr}
	ok := g.Key == w.key && g.Sessions == w.sessions && g.APICalls == w.calls && g.Recorded == rec
	if w.cost < 0 {
		ok = ok && g.CostUSD == nil && g.CostUSDAfter == nil
	} else {
		ok = ok && g.CostUSD != nil && math.Abs(*g.CostUSD-w.cost) < 1e-9
	}
	if !ok {
		t.Errorf("group %q: %d sessions, %d calls, %+v, %s; want %+v", g.Key, g.Sessions, g.APICalls, g.Recorded, fmtUSD(g.CostUSD), w)
	}
}

func TestGroups(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	utc := time.UTC
	day := func(s string, until bool) time.Time {
		b, err := ParseBound(s, utc, until)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	const unknown = -1
	s1Path := filepath.Join(byFixture, "claude", "projects", "-home-dev-shop", "s1.jsonl")
	s2Path := filepath.Join(byFixture, "claude", "projects", "-home-dev-blog", "s2.jsonl")
	c1Path := filepath.Join(byFixture, "codex", "sessions", "2026", "03", "02", "rollout-2026-03-02T10-00-00-c1.jsonl")
	// Every call: 6 calls (the advisor's usage is part of D), 5,010 input
	// (1,000 + 2,000 + 10 + 100 + 1,100 + 800), 1,430 output, 10,200
	// cache read; unknown, as C has no price.
	all := wantGroup{"total", 3, 6, 5010, 1430, 10200, unknown}
	tests := []struct {
		name     string
		g        Grouping
		want     []wantGroup
		total    wantGroup
		sessions int // listed in the JSON report
	}{
		{"sessions, the latest call first", Grouping{By: "session", Zone: utc}, []wantGroup{
			{s2Path, 1, 1, 1100, 1010, 0, 0.00675},
			{c1Path, 1, 1, 800, 100, 200, 0.002835},
			{s1Path, 1, 4, 3110, 320, 10000, unknown},
		}, all, 3},
		{"days in UTC", Grouping{By: "day", Zone: utc}, []wantGroup{
			{"2026-03-01", 1, 1, 1000, 100, 0, 0.0045},
			{"2026-03-02", 2, 4, 2910, 320, 10200, unknown},
			{"2026-03-08", 1, 1, 1100, 1010, 0, 0.00675},
		}, all, 3},
		// Five hours behind UTC until 8 March: s1's calls all fall on the 1st.
		{"days in New York", Grouping{By: "day", Zone: ny}, []wantGroup{
			{"2026-03-01", 1, 4, 3110, 320, 10000, unknown},
			{"2026-03-02", 1, 1, 800, 100, 200, 0.002835},
			{"2026-03-08", 1, 1, 1100, 1010, 0, 0.00675},
		}, all, 3},
		// 1 and 8 March 2026 are Sundays.
		{"weeks from Sunday", Grouping{By: "week", Zone: utc}, []wantGroup{
			{"2026-03-01", 2, 5, 3910, 420, 10200, unknown},
			{"2026-03-08", 1, 1, 1100, 1010, 0, 0.00675},
		}, all, 3},
		{"months", Grouping{By: "month", Zone: utc}, []wantGroup{
			{"2026-03", 3, 6, 5010, 1430, 10200, unknown},
		}, all, 3},
		// s2's log records no cwd: its Claude Code folder names it,
		// decoded. c1 and s1 worked in the same folder.
		{"projects", Grouping{By: "project", Zone: utc}, []wantGroup{
			{"/home/dev/blog", 1, 1, 1100, 1010, 0, 0.00675},
			{"/home/dev/shop", 2, 5, 3910, 420, 10200, unknown},
		}, all, 3},
		// The advisor's usage is a call on its own model; the total counts D once.
		{"models", Grouping{By: "model", Zone: utc}, []wantGroup{
			{"claude-haiku-4-5", 1, 1, 1000, 1000, 0, 0.006},
			{"claude-opus-4-6", 1, 1, 100, 10, 0, 0.00075},
			{"claude-opus-4-9", 1, 1, 10, 10, 0, unknown},
			{"claude-sonnet-4-5", 1, 3, 3100, 310, 10000, 0.01695},
			{"gpt-5.2", 1, 1, 800, 100, 200, 0.002835},
		}, all, 3},
		// 2 March, the whole day: B, X, C and E.
		{"one day", Grouping{By: "day", Zone: utc, Since: day("2026-03-02", false), Until: day("20260302", true)}, []wantGroup{
			{"2026-03-02", 2, 4, 2910, 320, 10200, unknown},
		}, wantGroup{"total", 2, 4, 2910, 320, 10200, unknown}, 2},
		// From X on to E, which the bound includes: X, C and E.
		{"instants", Grouping{By: "session", Zone: utc, Since: day("2026-03-02T00:40:00Z", false), Until: day("2026-03-02T05:00:00-05:00", true)}, []wantGroup{
			{c1Path, 1, 1, 800, 100, 200, 0.002835},
			{s1Path, 1, 2, 110, 20, 0, unknown},
		}, wantGroup{"total", 2, 3, 910, 120, 200, unknown}, 2},
		// Without C: every cost is known. A, B and X: $0.016950.
		{"a cut without the unpriced call", Grouping{By: "model", Zone: utc, Until: day("2026-03-02T00:59:59Z", true)}, []wantGroup{
			{"claude-sonnet-4-5", 1, 3, 3100, 310, 10000, 0.01695},
		}, wantGroup{"total", 1, 3, 3100, 310, 10000, 0.01695}, 1},
		// No call, no cost: $0, not unknown (a script summing months
		// would take an empty one for missing data).
		{"nothing in the range", Grouping{By: "day", Zone: utc, Since: day("2027-01-01", false)}, nil,
			wantGroup{"total", 0, 0, 0, 0, 0, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := groupJSON(t, byFixture, tt.g)
			if doc.Schema != Schema || doc.By != tt.g.By {
				t.Errorf("schema %q, by %q", doc.Schema, doc.By)
			}
			if len(doc.Groups) != len(tt.want) {
				t.Fatalf("%d groups, want %d: %+v", len(doc.Groups), len(tt.want), doc.Groups)
			}
			for i, w := range tt.want {
				w.check(t, doc.Groups[i])
			}
			tt.total.check(t, doc.Total)
			if len(doc.Sessions) != tt.sessions {
				t.Errorf("%d sessions listed, want %d (those with a call in the range)", len(doc.Sessions), tt.sessions)
			}
			parts := doc.Sessions
			for _, s := range doc.Sessions {
				var subs []map[string]json.RawMessage
				json.Unmarshal(s["subagents"], &subs)
				parts = append(parts, subs...)
			}
			for _, s := range parts {
				if _, ok := s["totals"]; !ok {
					t.Errorf("a session listed without its totals: %v", s)
				}
				for _, key := range []string{"calls", "results", "events"} {
					if _, ok := s[key]; ok {
						t.Errorf("without --calls, a session or sub-agent lists %q", key)
					}
				}
			}
		})
	}
}

// TestGroupsWithCalls: --calls keeps each session's calls, its
// sub-agents' among them, beside the groups.
func TestGroupsWithCalls(t *testing.T) {
	doc := groupJSON(t, byFixture, Grouping{By: "day", Zone: time.UTC, Calls: true})
	calls := 0
	for _, s := range doc.Sessions {
		var list []json.RawMessage
		json.Unmarshal(s["calls"], &list)
		calls += len(list)
		var subs []struct{ Calls []json.RawMessage }
		json.Unmarshal(s["subagents"], &subs)
		for _, sub := range subs {
			calls += len(sub.Calls)
		}
	}
	if calls != 6 {
		t.Errorf("%d calls listed, want 6", calls)
	}
}

// TestGroupsText pins the text table: one row per group, the total, and
// what the unknown cost lacks; with a policy, the after columns.
func TestGroupsText(t *testing.T) {
	none, _ := policy.Preset("none")
	spill, _ := policy.Preset("harness-rs-0.0.50")
	text := func(pol policy.Policy, g Grouping) string {
		t.Helper()
		var out, errw bytes.Buffer
		opt := Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase), SpillRoot: t.TempDir()}
		if _, err := GenerateGroups([]string{byFixture}, nil, opt, g, "text", &out, &errw); err != nil || errw.Len() > 0 {
			t.Fatalf("%v %s", err, errw.String())
		}
		return out.String()
	}
	got := text(none, Grouping{By: "day", Zone: time.UTC, ZoneName: "UTC"})
	want := `by day · 3 sessions, 6 API calls · times in UTC
  day         sessions  calls  input  output  cache write  cache read       cost
  2026-03-01         1      1  1,000     100            0           0  $0.004500
  2026-03-02         2      4  2,910     320            0      10,200    unknown
  2026-03-08         1      1  1,100   1,010            0           0  $0.006750
  total              3      6  5,010   1,430            0      10,200    unknown
  cost unknown where a model has no price: claude-opus-4-9; the priced calls cost $0.026535
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// --until an instant counts the call at it: the head says through it,
	// not before the nanosecond after.
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	until, err := ParseBound("2026-03-02T10:00:00Z", tokyo, true)
	if err != nil {
		t.Fatal(err)
	}
	got = text(none, Grouping{By: "day", Zone: tokyo, ZoneName: "Asia/Tokyo", Until: until})
	if head, _, _ := strings.Cut(got, "\n"); head != "by day · 2 sessions, 5 API calls · times in Asia/Tokyo · calls through 2026-03-02T19:00:00+09:00" {
		t.Errorf("head %q", head)
	}
	// No tool result to shape: after is the cost, nothing saved.
	got = text(spill, Grouping{By: "month", Zone: time.UTC, ZoneName: "UTC", Until: time.Date(2026, 3, 2, 1, 0, 0, 0, time.UTC)})
	want = `by month · 1 session, 3 API calls · times in UTC · calls before 2026-03-02T01:00:00Z · after harness-rs-0.0.50
  month    sessions  calls  input  output  cache write  cache read       cost      after      saved  share
  2026-03         1      3  3,100     310            0      10,000  $0.016950  $0.016950  $0.000000   0.0%
  total           1      3  3,100     310            0      10,000  $0.016950  $0.016950  $0.000000   0.0%
  ` + assumption + "\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	// Several sessions and no --by: the sessions' table, each by the time
	// of its latest call, in the zone, its path under the folder they share.
	ny, _ := time.LoadLocation("America/New_York")
	got = text(none, Grouping{Zone: ny, ZoneName: "America/New_York"})
	want = `by session · 3 sessions, 6 API calls · times in America/New_York · paths under testdata/by
  project  session  last call         model                 agent          file                         calls  input  output  cache write  cache read       cost
  blog     s2       2026-03-08 08:00  claude-haiku-4-5 +1   claude         claude/p…-dev-blog/s2.jsonl      1  1,100   1,010            0           0  $0.006750
  shop     c1       2026-03-02 05:00  gpt-5.2               codex 0.128.0  codex/se…T10-00-00-c1.jsonl      1    800     100            0         200  $0.002835
  shop     s1       2026-03-01 20:00  claude-sonnet-4-5 +1  claude         claude/p…-dev-shop/s1.jsonl      4  3,110     320            0      10,000    unknown
  total                                                                                                     6  5,010   1,430            0      10,200    unknown
  cost unknown where a model has no price: claude-opus-4-9; the priced calls cost $0.026535
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("several sessions without --by (-want +got)\n%s", diff)
	}
}

// TestGroupsUntrusted: a project name from a log reaches the terminal
// escaped, and a CSV cell that a spreadsheet would run is quoted.
func TestGroupsUntrusted(t *testing.T) {
	dir := t.TempDir()
	line := `{"type":"assistant","timestamp":"2026-03-02T00:00:00.000Z","sessionId":"e\u001b]0;t\u0007","cwd":"=HYPERLINK(\"x\")\u001b]52;c;aGk=\u0007","uuid":"u","requestId":"r","message":{"id":"m","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[]}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "e.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	none, _ := policy.Preset("none")
	g := Grouping{By: "project", Zone: time.UTC, ZoneName: "UTC"}
	run := func(format string) string {
		var out, errw bytes.Buffer
		if _, err := GenerateGroups([]string{dir}, nil, Options{Prices: pricing.Default(), Policy: none}, g, format, &out, &errw); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	text := run("text")
	if strings.ContainsAny(text, "\x1b\x07") || !strings.Contains(text, `=HYPERLINK("x")\x1b]52;c;aGk=\x07`) {
		t.Errorf("the project reaches the terminal as:\n%q", text)
	}
	// The session table shows the project's last part and the session id,
	// both from the log: escaped too.
	g.By = "session"
	if text := run("text"); strings.ContainsAny(text, "\x1b\x07") || !strings.Contains(text, `e\x1b]0;t\x07`) {
		t.Errorf("the session table reaches the terminal as:\n%q", text)
	}
	g.By = "project"
	rows, err := csv.NewReader(strings.NewReader(run("csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 1 input and 1 output token of haiku-4-5: $0.000001 + $0.000005.
	want := [][]string{groupHeader, {"project", `'=HYPERLINK("x")\x1b]52;c;aGk=\x07`, "1", "1", "1", "1", "0", "0", "0.000006000", ""}} // no policy: no after
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("CSV (-want +got)\n%s", diff)
	}
}

// TestGroupProjectWithoutCalls: a session without calls counts in its
// project's sessions, as in the total's, so that by project the sessions
// sum to the total (by session, it is a row of its own).
func TestGroupProjectWithoutCalls(t *testing.T) {
	dir := t.TempDir()
	meta := `{"type":"session_meta","timestamp":"2026-05-12T08:00:00Z","payload":{"id":"idle","cwd":"/w","cli_version":"0.1"}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "idle.jsonl"), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	none, _ := policy.Preset("none")
	for _, tt := range []struct {
		g    Grouping
		want string
	}{
		// The family's two sessions (their calls, by hand in family_test.go) and the idle one, all in /w.
		{Grouping{By: "project", Zone: time.UTC}, "project,/w,3,4,1485,330,0,165,0.007247625,\n"},
		// A cut leaves out a session without a call in it.
		{Grouping{By: "project", Zone: time.UTC, Since: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}, "project,/w,2,4,1485,330,0,165,0.007247625,\n"},
	} {
		var out bytes.Buffer
		if _, err := GenerateGroups([]string{dir, "../testdata/codex/family"}, nil, Options{Prices: pricing.Default(), Policy: none}, tt.g, "csv", &out, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(strings.Join(groupHeader, ",")+"\n"+tt.want, out.String()); diff != "" {
			t.Errorf("%+v (-want +got)\n%s", tt.g, diff)
		}
	}
}

// TestGroupCopies: a log whose every response is copied from another
// (the same session found twice, a resumed copy) is a row of no calls
// that costs $0, as its own report says, not unknown beside a known total.
func TestGroupCopies(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(byFixture, "claude", "projects", "-home-dev-blog", "s2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	none, _ := policy.Preset("none")
	var out bytes.Buffer
	if _, err := GenerateGroups([]string{dir}, nil, Options{Prices: pricing.Default(), Policy: none},
		Grouping{By: "session", Zone: time.UTC}, "csv", &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// s2: 1,100 in + 1,010 out of claude-haiku-4-5 = $0.006750, once.
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var costs []string
	for _, r := range rows[1:] {
		costs = append(costs, r[3]+" "+r[8])
	}
	if diff := cmp.Diff([]string{"1 0.006750000", "0 0.000000000"}, costs); diff != "" {
		t.Errorf("calls and cost per session (-want +got)\n%s", diff)
	}
}

// TestGroupsCSV: one row per group, numbers as they are, unknown costs
// empty.
func TestGroupsCSV(t *testing.T) {
	none, _ := policy.Preset("none")
	var out bytes.Buffer
	if _, err := GenerateGroups([]string{byFixture}, nil, Options{Prices: pricing.Default(), Policy: none},
		Grouping{By: "project", Zone: time.UTC}, "csv", &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join(groupHeader, ",") + "\n" +
		"project,/home/dev/blog,1,1,1100,1010,0,0,0.006750000,\n" +
		"project,/home/dev/shop,2,5,3910,420,0,10200,,\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	if err := (Grouping{By: "day", Calls: true}).CheckFormat("csv"); err == nil {
		t.Error("--calls with --by in CSV is taken")
	}
}

// TestGroupNoTime: a call whose log records no time is in no day, week
// or month, but its own group; a cut leaves it out.
func TestGroupNoTime(t *testing.T) {
	usd := 0.5
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	s := &Session{Path: "s.jsonl", Calls: []Call{
		{Model: "m", Recorded: &Tokens{Input: 1}, CostUSD: &usd, CostUSDAfter: &usd},
		{Model: "m", Time: &at, Recorded: &Tokens{Input: 2}, CostUSD: &usd, CostUSDAfter: &usd},
	}}
	for _, tt := range []struct {
		g    Grouping
		keys []string
	}{
		{Grouping{By: "day"}, []string{"", "2026-03-02"}},
		{Grouping{By: "week"}, []string{"", "2026-03-01"}},
		{Grouping{By: "day", Since: at}, []string{"2026-03-02"}},
	} {
		gr := newGrouper(tt.g)
		gr.add(gr.split(s))
		var keys []string
		for _, g := range gr.result().Groups {
			keys = append(keys, g.Key)
		}
		if !cmp.Equal(keys, tt.keys) {
			t.Errorf("%+v: groups %q, want %q", tt.g, keys, tt.keys)
		}
	}
	// The cut leaves the call without a time out, and says so rather than
	// dropping it silently; without a cut nothing is left out.
	for _, tt := range []struct {
		g       Grouping
		untimed int
		note    bool
	}{
		{Grouping{By: "day"}, 0, false},
		{Grouping{By: "day", Since: at}, 1, true},
		{Grouping{By: "day", Since: at.Add(time.Hour)}, 1, true}, // no call in the range: the session is out, its untimed call still told
	} {
		gr := newGrouper(tt.g)
		gr.add(gr.split(s))
		res := gr.result()
		if res.Untimed != tt.untimed {
			t.Errorf("%+v: untimed %d, want %d", tt.g, res.Untimed, tt.untimed)
		}
		var b strings.Builder
		writeGroups(&b, res, 0)
		if got := strings.Contains(b.String(), "  1 call left out: the log gives no time to cut by\n"); got != tt.note {
			t.Errorf("%+v: note %v, want %v:\n%s", tt.g, got, tt.note, b.String())
		}
	}
}

func TestParseBound(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in    string
		until bool
		want  time.Time
	}{
		{"2026-05-04", false, time.Date(2026, 5, 4, 0, 0, 0, 0, berlin)},
		{"20260504", false, time.Date(2026, 5, 4, 0, 0, 0, 0, berlin)},
		{"2026-05-04", true, time.Date(2026, 5, 5, 0, 0, 0, 0, berlin)}, // the whole day
		{"2026-05-04T09:30:00Z", false, time.Date(2026, 5, 4, 9, 30, 0, 0, time.UTC)},
		{"2026-05-04T09:30:00Z", true, time.Date(2026, 5, 4, 9, 30, 0, 1, time.UTC)}, // inclusive
	}
	for _, tt := range tests {
		got, err := ParseBound(tt.in, berlin, tt.until)
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseBound(%q, until %v) = %v, %v; want %v", tt.in, tt.until, got, err, tt.want)
		}
	}
	for _, bad := range []string{"yesterday", "2026-13-01", "2026-05-04 09:30"} {
		if _, err := ParseBound(bad, berlin, false); err == nil {
			t.Errorf("ParseBound(%q) takes it", bad)
		}
	}
	if _, _, err := ParseZone("Mars/Olympus"); err == nil {
		t.Error("ParseZone takes an unknown zone")
	}
}

// TestDaysWithoutMidnight: a day whose midnight the clocks skip begins
// at the change, and a day skipped whole is empty. Santiago's clocks go
// from 2026-09-05 23:59:59 -04 to 2026-09-06 01:00 -03; Apia's from
// 2011-12-29 23:59:59 -10 to 2011-12-31 00:00 +14.
func TestDaysWithoutMidnight(t *testing.T) {
	santiago, err1 := time.LoadLocation("America/Santiago")
	apia, err2 := time.LoadLocation("Pacific/Apia")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	change := time.Date(2026, 9, 6, 4, 0, 0, 0, time.UTC)
	skip := time.Date(2011, 12, 30, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in    string
		zone  *time.Location
		until bool
		want  time.Time
	}{
		{"2026-09-06", santiago, false, change},
		{"2026-09-05", santiago, true, change},
		{"2026-09-05", santiago, false, time.Date(2026, 9, 5, 4, 0, 0, 0, time.UTC)},
		{"2026-09-07", santiago, false, time.Date(2026, 9, 7, 3, 0, 0, 0, time.UTC)},
		{"2011-12-29", apia, false, time.Date(2011, 12, 29, 10, 0, 0, 0, time.UTC)},
		{"2011-12-29", apia, true, skip},
		{"2011-12-30", apia, false, skip},
		{"2011-12-30", apia, true, skip},
		{"2011-12-31", apia, false, skip},
	} {
		if got, err := ParseBound(tt.in, tt.zone, tt.until); err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseBound(%q, %s, until %v) = %v, %v; want %v", tt.in, tt.zone, tt.until, got.UTC(), err, tt.want)
		}
	}
	// A week begins on its Sunday, whether or not that Sunday has a midnight.
	for _, tt := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 9, 6, 5, 0, 0, 0, time.UTC), "2026-09-06"},  // Sunday 02:00 -03
		{time.Date(2026, 9, 8, 15, 0, 0, 0, time.UTC), "2026-09-06"}, // Tuesday
		{time.Date(2026, 9, 6, 3, 30, 0, 0, time.UTC), "2026-08-30"}, // Saturday 23:30 -04
	} {
		if got := dateKey(&tt.at, santiago, "week"); got != tt.want {
			t.Errorf("week of %v = %s, want %s", tt.at.In(santiago), got, tt.want)
		}
	}
}

// TestSessionNames pins the by-session table's file column: paths under
// the shared folder, escaped (the table elides them as it has room).
func TestSessionNames(t *testing.T) {
	for _, tt := range []struct {
		name  string
		keys  []string
		under string
		want  []string
	}{
		{"short stays", []string{"/p/a.jsonl", "/p/b.jsonl"}, "/p", []string{"a.jsonl", "b.jsonl"}},
		{"claude uuid", []string{"/h/.claude/projects/-home-u-shop/0b1c2d3e-1111-2222-3333-444455556666.jsonl"}, "/h/.claude/projects",
			[]string{"-home-u-shop/0b1c2d3e-1111-2222-3333-444455556666.jsonl"}},
		{"alike kept whole", []string{"/p/aaaaaaaaaaaa1bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jsonl", "/p/aaaaaaaaaaaa2bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jsonl", "/p/short.jsonl"}, "/p",
			[]string{"aaaaaaaaaaaa1bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jsonl", "aaaaaaaaaaaa2bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jsonl", "short.jsonl"}},
		{"escaped, wide", []string{"/p/\x1b[31m漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字.jsonl"}, "",
			[]string{`/p/\x1b[31m漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字.jsonl`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			groups := make([]Group, len(tt.keys))
			for i, k := range tt.keys {
				groups[i].Key = k
			}
			got := sessionNames(groups, tt.under)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestGroupsCountWarnings: a session whose report warns (here of usage
// that is no count) is said to, in the grouped text and JSON, with the
// cache and without: its figures lack what those lines held.
func TestGroupsCountWarnings(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "n0.jsonl")
	os.WriteFile(log, []byte(`{"type":"assistant","message":{"model":"claude-sonnet-4-5","id":"m1","type":"message","role":"assistant","content":[{"type":"text","text":"x"}],"usage":{"input_tokens":-1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":20}},"uuid":"a1","sessionId":"n0","timestamp":"2026-02-10T10:00:01.000Z","requestId":"r1"}`+"\n"), 0o600)
	none, _ := policy.Preset("none")
	cache := t.TempDir()
	for _, format := range []string{"text", "json"} {
		for i, dir := range []string{"", cache, cache} {
			var out bytes.Buffer
			opt := Options{Prices: pricing.Default(), Policy: none, CacheDir: dir}
			if _, err := GenerateGroups([]string{log}, nil, opt, Grouping{By: "day", ZoneName: "UTC"}, format, &out, io.Discard); err != nil {
				t.Fatal(err)
			}
			want := "1 warning in 1 session: what those lines held is not counted"
			if format == "json" {
				want = `"warnings":1,"sessions_with_warnings":1`
			}
			if !strings.Contains(out.String(), want) {
				t.Errorf("%s, run %d: no %q in\n%s", format, i, want, out.String())
			}
		}
	}
}

// TestLocalZoneName: the machine's zone is named as Go reads TZ; a TZ it
// cannot load (a POSIX rule) leaves its clock on UTC, and is named so.
func TestLocalZoneName(t *testing.T) {
	for tz, want := range map[string]string{"Asia/Kathmandu": "Asia/Kathmandu", ":Europe/Berlin": "Europe/Berlin", "<+0545>-5:45": "UTC", "Mars/Olympus": "UTC"} {
		t.Setenv("TZ", tz)
		if got := localZoneName(); got != want {
			t.Errorf("TZ=%q: %q, want %q", tz, got, want)
		}
	}
}

// TestStdinProject: a log on standard input is in the project its start
// records, whatever file named "stdin" lies in the working folder.
func TestStdinProject(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("testdata", "by", "codex", "sessions", "2026", "03", "02", "rollout-2026-03-02T10-00-00-c1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "stdin"), []byte(strings.ReplaceAll(string(log), "/home/dev/shop", "/decoy")), 0o600)
	t.Chdir(dir)
	none, _ := policy.Preset("none")
	var out bytes.Buffer
	opt := Options{Prices: pricing.Default(), Policy: none}
	if _, err := GenerateGroups([]string{"-"}, bytes.NewReader(log), opt, Grouping{By: "project", ZoneName: "UTC"}, "text", &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "/home/dev/shop") || strings.Contains(out.String(), "/decoy") {
		t.Errorf("project of the log on standard input:\n%s", out.String())
	}
}

package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// codexCounted is one usage event a session counts, as the log recorded it:
// input includes the cached part.
type codexCounted struct {
	Model                                   string
	Input, Cached, Output, Reasoning, Total int64
}

// gpt52 is a usage event of ccusage's replay fixtures: n input tokens, one
// output token, gpt-5.2.
func gpt52(n int64) codexCounted { return codexCounted{"gpt-5.2", n, 0, 1, 0, n + 1} }

// readCodexCase reads every file of testdata/codex/<name> and reconciles
// them as one set, in file-name order.
func readCodexCase(t *testing.T, name string, opt Options) []*Session {
	t.Helper()
	dir := filepath.Join("..", "testdata", "codex", name)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sessions []*Session
	for _, e := range entries {
		s, err := ReadFile(filepath.Join(dir, e.Name()), opt)
		if err != nil {
			t.Fatal(err)
		}
		if s.WarningCount != 0 {
			t.Errorf("%s: warnings %v", e.Name(), s.Warnings)
		}
		sessions = append(sessions, s)
	}
	Reconcile(sessions)
	return sessions
}

// countedBy lists, per file stem, the usage events no other session counts.
func countedBy(sessions []*Session) map[string][]codexCounted {
	out := make(map[string][]codexCounted)
	for _, s := range sessions {
		stem := strings.TrimSuffix(filepath.Base(s.Path), ".jsonl")
		out[stem] = []codexCounted{}
		for _, c := range s.Calls {
			if u := c.Usage; u != nil && c.CountedIn == "" {
				out[stem] = append(out[stem], codexCounted{c.Model, u.Input + u.CacheRead + u.CacheCreation,
					u.CacheRead, u.Output, u.Reasoning, u.LoggedTotal})
			}
		}
	}
	return out
}

// TestCodexReplays ports ccusage's Codex loader tests (rust/adapters/codex
// loader.rs, and the 18.x TypeScript data-loader): each case's files are the
// test's input, and the events each session counts are the test's expected
// values (fields the test leaves unchecked are worked out by hand from the
// input).
func TestCodexReplays(t *testing.T) {
	p1 := codexCounted{"gpt-5.2", 1000, 100, 200, 0, 1200}
	p2 := codexCounted{"gpt-5.2", 500, 50, 100, 0, 600}
	tests := []struct {
		name string // the directory under testdata/codex
		test string // the ccusage test it ports
		want map[string][]codexCounted
	}{
		{"fork-replay", "skips_replayed_parent_token_history_in_forked_session_files", map[string][]codexCounted{
			"2026-05-12T08-00-00-parent": {p1, p2},
			"2026-05-12T08-03-00-fork":   {{"gpt-5.2", 100, 10, 20, 0, 120}},
		}},
		{"subagent-replay", "skips_replayed_parent_token_history_in_thread_spawn_subagent_files", map[string][]codexCounted{
			"2026-05-12T08-00-00-parent":   {p1, p2},
			"2026-05-12T08-03-00-subagent": {{"gpt-5.2", 100, 10, 20, 0, 120}, {"gpt-5.2", 50, 5, 10, 0, 60}},
		}},
		{"subagent-baseline", "keeps_cumulative_baseline_when_skipping_subagent_replay", map[string][]codexCounted{
			"2026-05-12T08-03-00-subagent": {{"gpt-5.2", 100, 10, 20, 0, 120}},
		}},
		{"subagents-many", "skips_replayed_history_across_multiple_subagent_files", map[string][]codexCounted{
			// 1,150 input in all: 1,000 of the parent's and 50 + 75 + 25.
			"2026-05-12T08-01-00-parent":     {{"gpt-5.2", 1000, 100, 200, 0, 1200}},
			"2026-05-12T08-02-00-subagent-a": {{"gpt-5.2", 50, 0, 10, 0, 60}},
			"2026-05-12T08-06-00-subagent-b": {{"gpt-5.2", 75, 0, 10, 0, 85}},
			"2026-05-12T08-10-00-subagent-c": {{"gpt-5.2", 25, 0, 10, 0, 35}},
		}},
		{"numeric-fork-time", "bounds_the_replay_at_a_numeric_fork_timestamp", map[string][]codexCounted{
			"01-parent": {gpt52(100), gpt52(50)},
			"02-child":  {gpt52(50)},
		}},
		{"mid-stream", "falls_back_to_rewritten_second_when_the_replay_starts_mid_parent_stream", map[string][]codexCounted{
			"01-parent": {gpt52(100), gpt52(200), gpt52(300)},
			"02-child":  {gpt52(400)},
		}},
		{"burst-straddles-second", "skips_a_rewritten_burst_that_straddles_a_second_boundary", map[string][]codexCounted{
			"child": {gpt52(500)},
		}},
		{"after-burst", "keeps_fork_local_usage_recorded_after_a_rewritten_burst", map[string][]codexCounted{
			"child": {gpt52(300), gpt52(400), gpt52(500)},
		}},
		{"child-equals-parent-after-fork", "keeps_child_usage_matching_parent_event_after_fork", map[string][]codexCounted{
			"parent": {gpt52(100), gpt52(50)},
			"child":  {gpt52(50)},
		}},
		{"parent-replayed-missing", "keeps_full_parent_stream_when_the_parent_itself_replayed_a_missing_session", map[string][]codexCounted{
			"01-parent": {gpt52(300), gpt52(400)},
			"02-child":  {gpt52(500)},
		}},
		{"self-parent", "keeps_usage_of_a_session_that_lists_itself_as_its_own_parent", map[string][]codexCounted{
			"self": {gpt52(100), gpt52(200)},
		}},
		{"self-parent-shared-id", "unbounded_loading_skips_a_self_parent_candidate_for_a_duplicate_parent_id", map[string][]codexCounted{
			"aaa-child":  {gpt52(50)},
			"zzz-parent": {gpt52(100)},
		}},
		{"parent-by-payload-id", "bounded_loading_resolves_thread_id_rollout_parent_by_payload_id (no date bounds)", map[string][]codexCounted{
			"2025-01-01T08-00-00-thread_id_rollout": {gpt52(100)},
			"child":                                 {gpt52(50)},
		}},
		{"misleading-file-name", "bounded_loading_does_not_select_a_misleading_filename (no date bounds)", map[string][]codexCounted{
			"aaa-target-id":     {gpt52(999)},
			"child":             {gpt52(50)},
			"zzz-actual-parent": {gpt52(100)},
		}},
		{"first-duplicate-parent", "bounded_loading_uses_the_first_duplicate_parent_id (no date bounds)", map[string][]codexCounted{
			"aaa-first-parent":  {gpt52(100)},
			"child":             {gpt52(50)},
			"zzz-second-parent": {gpt52(200)},
		}},
		{"duplicate-snapshot", "skips_missing_parent_replay_when_duplicate_snapshot_is_suppressed", map[string][]codexCounted{
			"child": {{"gpt-5.5", 50, 0, 1, 0, 51}},
		}},
		{"nested", "skips_nested_replays_against_immutable_parent_streams", map[string][]codexCounted{
			"01-root":   {gpt52(100)},
			"02-parent": {gpt52(50)},
			"03-child":  {gpt52(25)},
		}},
		{"unchanged-total", "skips_repeated_last_usage_when_cumulative_total_is_unchanged", map[string][]codexCounted{
			"session": {{"gpt-5.5", 100, 20, 10, 0, 110}},
		}},
		{"copied-branch", "dedupes_copied_branch_history_across_session_files", map[string][]codexCounted{
			"2026-05-12T08-00-00-parent": {{"gpt-5.2", 1000, 100, 200, 20, 1200}},
			"2026-05-12T08-02-00-branch": {{"gpt-5.2", 600, 200, 250, 20, 850}},
		}},
		{"same-event-two-files", "dedupes_matching_codex_usage_events_from_distinct_sessions", map[string][]codexCounted{
			"session-a": {{"gpt-5", 100, 10, 50, 0, 150}},
			"session-b": {},
		}},
		{"spaced-type", "loads_session_usage_with_spaced_type_fields", map[string][]codexCounted{
			"session": {{"gpt-5", 100, 10, 50, 0, 150}, {"gpt-5", 100, 10, 25, 0, 125}},
		}},
		{"numeric-timestamp", "loads_session_usage_with_numeric_timestamp", map[string][]codexCounted{
			"session": {{"gpt-5", 100, 10, 50, 0, 150}},
		}},
		{"totals-after-last", "18.x: parses token_count events and skips entries without model metadata", map[string][]codexCounted{
			"project-1": {{"gpt-5", 1200, 200, 500, 0, 1700}, {"gpt-5", 800, 100, 300, 0, 1100}},
		}},
		// ccusage prices this as gpt-5 and flags the guess; spillway
		// leaves the model unknown, so the cost is unknown too.
		{"no-model", "18.x: falls back to legacy model when metadata is missing entirely", map[string][]codexCounted{
			"legacy": {{"", 5000, 0, 1000, 0, 6000}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, opt := range []Options{{}, {SizesOnly: true}} {
				sessions := readCodexCase(t, tt.name, opt)
				if diff := cmp.Diff(tt.want, countedBy(sessions)); diff != "" {
					t.Errorf("%s (sizes only %v): counted events (-want +got):\n%s", tt.test, opt.SizesOnly, diff)
				}
				// Reconciling again decides the same.
				Reconcile(sessions)
				if diff := cmp.Diff(tt.want, countedBy(sessions)); diff != "" {
					t.Errorf("%s: a second Reconcile moved events (-want +got):\n%s", tt.test, diff)
				}
			}
		})
	}
}

// TestCodexReplayMarks checks what a replayed event is marked with: the
// parent's file where the parent was read, else the parent's id.
func TestCodexReplayMarks(t *testing.T) {
	marks := func(s *Session) []string {
		var out []string
		for _, c := range s.Calls {
			out = append(out, filepath.Base(c.CountedIn))
		}
		return out
	}
	tests := []struct {
		name, file string
		want       []string
	}{
		// The parent is read: its first event is the child's first.
		{"numeric-fork-time", "02-child.jsonl", []string{"01-parent.jsonl", "."}},
		// The parent is read, but the replay is of a compacted history: the
		// burst is the parent's.
		{"mid-stream", "02-child.jsonl", []string{"01-parent.jsonl", "01-parent.jsonl", "."}},
		// No file carries the parent's id.
		{"fork-replay", "2026-05-12T08-03-00-fork.jsonl", []string{"session parent-xyz", "session parent-xyz", "."}},
		// A copied branch: its first event is the parent file's.
		{"copied-branch", "2026-05-12T08-02-00-branch.jsonl", []string{"2026-05-12T08-00-00-parent.jsonl", "."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sessions := readCodexCase(t, tt.name, Options{})
			i := slices.IndexFunc(sessions, func(s *Session) bool { return filepath.Base(s.Path) == tt.file })
			if diff := cmp.Diff(tt.want, marks(sessions[i])); diff != "" {
				t.Errorf("marks (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCodexReplayAlone reads a fork without Reconcile: the reader alone
// skips the burst it opens with, since its parent is not read.
func TestCodexReplayAlone(t *testing.T) {
	s, err := ReadFile(filepath.Join("..", "testdata", "codex", "fork-replay", "2026-05-12T08-03-00-fork.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := countedBy([]*Session{s})["2026-05-12T08-03-00-fork"]
	if diff := cmp.Diff([]codexCounted{{"gpt-5.2", 100, 10, 20, 0, 120}}, got); diff != "" {
		t.Errorf("counted (-want +got):\n%s", diff)
	}
}

// TestCodexIdentity checks that a rollout is named by its own session_meta,
// not the parent's it embeds, and keeps the link to the parent.
func TestCodexIdentity(t *testing.T) {
	type identity struct {
		ID, ParentID string
		Relation     Relation
		Started      string
	}
	tests := []struct {
		name, file string
		want       identity
	}{
		{"fork-replay", "2026-05-12T08-03-00-fork.jsonl", identity{"fork-abc", "parent-xyz", RelationFork, "2026-05-12T08:03:00Z"}},
		{"fork-replay", "2026-05-12T08-00-00-parent.jsonl", identity{"2026-05-12T08-00-00-parent", "", RelationNone, ""}},
		{"subagent-replay", "2026-05-12T08-03-00-subagent.jsonl", identity{"subagent-abc", "parent-xyz", RelationSubagent, "2026-05-12T08:03:00Z"}},
		// Epoch seconds.
		{"numeric-fork-time", "02-child.jsonl", identity{"child", "parent", RelationFork, "2026-07-10T08:02:00Z"}},
		{"nested", "01-root.jsonl", identity{"root", "", RelationNone, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.file, func(t *testing.T) {
			s, err := ReadFile(filepath.Join("..", "testdata", "codex", tt.name, tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := identity{s.ID, s.ParentID, s.Relation, ""}
			if !s.Started.IsZero() {
				got.Started = s.Started.UTC().Format("2006-01-02T15:04:05Z07:00")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("identity (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCodexServiceTiers ports ccusage's service-tier loader tests: a tier
// applies to the usage after it; a settings event without one keeps it; an
// unknown tier is not fast.
func TestCodexServiceTiers(t *testing.T) {
	tests := []struct {
		name, test string
		want       []bool
	}{
		{"service-tier", "records_service_tier_transitions_for_following_usage", []bool{false, true, false, true}},
		{"service-tier-omitted", "keeps_recorded_service_tier_when_a_later_settings_event_omits_it", []bool{true, true, false, false}},
		{"service-tier-unmarked", "leaves_unmarked_and_unsupported_service_tiers_unclassified", []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := readCodexCase(t, tt.name, Options{})[0]
			var got []bool
			for _, c := range s.Calls {
				got = append(got, c.Usage.Fast)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: fast (-want +got):\n%s", tt.test, diff)
			}
		})
	}
}

// TestCodexNumericTimestamp pins the time of usage recorded with epoch
// milliseconds (ccusage's loads_session_usage_with_numeric_timestamp).
func TestCodexNumericTimestamp(t *testing.T) {
	s := readCodexCase(t, "numeric-timestamp", Options{})[0]
	if got := s.Calls[0].Usage.At; !got.Equal(ts("2026-01-02T00:00:01Z")) {
		t.Errorf("usage at %v, want 2026-01-02T00:00:01Z", got)
	}
}

// TestCodexCompactedHeavy ports the 18.x loader's compacted-heavy session:
// a 2 MB compaction line does not keep the usage after it from being read.
func TestCodexCompactedHeavy(t *testing.T) {
	log := `{"timestamp":"2025-09-15T13:00:00.000Z","type":"compacted","payload":{"replacement_history":"` + strings.Repeat("x", 2_000_000) + `"}}
{"timestamp":"2025-09-15T13:00:10.000Z","type":"turn_context","payload":{"model":"gpt-5.4"}}
{"timestamp":"2025-09-15T13:00:11.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":42,"cached_input_tokens":2,"output_tokens":8,"reasoning_output_tokens":1,"total_tokens":50}}}}
`
	s, err := Read(strings.NewReader(log), "compacted.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]codexCounted{"compacted": {{"gpt-5.4", 42, 2, 8, 1, 50}}}
	if diff := cmp.Diff(want, countedBy([]*Session{s})); diff != "" {
		t.Errorf("counted (-want +got):\n%s", diff)
	}
	if !s.Calls[0].Usage.At.Equal(ts("2025-09-15T13:00:11Z")) {
		t.Errorf("usage at %v", s.Calls[0].Usage.At)
	}
}

// TestCodexWithoutType: a Codex line without "type" is warned about by
// line, and a file of only such lines is refused with the field named.
func TestCodexWithoutType(t *testing.T) {
	meta := `{"timestamp":"2026-01-02T00:00:00.000Z","type":"session_meta","payload":{"id":"s"}}`
	untyped := `{"timestamp":"2026-01-02T00:00:01.000Z","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1,"output_tokens":1}}}}`
	s, err := Read(strings.NewReader(meta+"\n"+untyped+"\n"), "x.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{{Line: 2, Message: `record without a "type" field (session_meta, response_item, event_msg, ...)`}}
	if diff := cmp.Diff(want, s.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	_, err = Read(strings.NewReader(untyped+"\n"+untyped+"\n"), "y.jsonl", Options{})
	if err == nil || !strings.Contains(err.Error(), `no "type" field`) {
		t.Errorf("error %v, want one naming the missing \"type\" field", err)
	}
}

// TestCodexTotalsNormalized ports ccusage's
// normalizes_cache_usage_after_cumulative_resets_and_series_changes: the
// difference of two running totals keeps cached input and cache writes
// within the input. After a reset (line 2) nothing is new; after the cache
// counts moved from reads to writes (line 4) the 10 new input tokens are
// all writes.
func TestCodexTotalsNormalized(t *testing.T) {
	total := func(in, cached, writes, out int) string {
		return `{"timestamp":"2026-07-10T08:00:0` + strconv.Itoa(out) + `Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{` +
			`"input_tokens":` + strconv.Itoa(in) + `,"cached_input_tokens":` + strconv.Itoa(cached) +
			`,"cache_write_input_tokens":` + strconv.Itoa(writes) + `,"output_tokens":` + strconv.Itoa(out) + `}},"model":"gpt-5.5"}}` + "\n"
	}
	log := total(100, 0, 100, 1) + total(10, 10, 0, 1) + total(100, 100, 0, 2) + total(110, 0, 110, 3)
	s, err := Read(strings.NewReader(log), "totals.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []Usage
	for _, c := range s.Calls {
		u := *c.Usage
		u.At = time.Time{}
		got = append(got, u)
	}
	want := []Usage{
		{Input: 0, CacheCreation: 100, Output: 1},
		{Input: 0, CacheRead: 90, Output: 1},
		{Input: 0, CacheCreation: 10, Output: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
	if s.WarningCount != 0 || s.Skipped["event_msg/token_count (no usage)"] != 1 {
		t.Errorf("warnings %v, skipped %v", s.Warnings, s.Skipped)
	}
}

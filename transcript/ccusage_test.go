package transcript

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// claudeCounted is a call that a set of sessions read together counts.
type claudeCounted struct {
	File       string // relative to the case's folder
	MessageID  string
	RequestID  string
	Usage      Usage
	Extra      []ModelUsage
	Model      string
	CopiedFrom []string // files whose copies of the response this one stands for
}

// TestCcusageDedupe ports ccusage's tests of which Claude Code usage entries
// count: its Rust loader (rust/adapters/claude/src/lib.rs, test names in
// snake case) and the TypeScript data loader of the 18.x line (in-source
// tests of data-loader.ts, names in prose). Their inputs become our
// fixtures, with a "type" added where ccusage's omit it (spillway reads
// records by type), and their expected values are checked on the calls
// that count once every file of the case is read and reconciled: read in
// full and by size, as written and spaced out.
func TestCcusageDedupe(t *testing.T) {
	const sonnet = `"model":"claude-sonnet-4-20250514"`
	// replayLine is ccusage's UsageEntryFixture: session-a, one timestamp.
	replayLine := func(msg, req string, sidechain bool, cacheRead, output string) string {
		sc := "false"
		if sidechain {
			sc = "true"
		}
		return `{"type":"assistant","sessionId":"session-a","timestamp":"2026-03-29T07:00:00.000Z","version":"1.0.0","requestId":"` + req +
			`","isSidechain":` + sc + `,"message":{"id":"` + msg + `",` + sonnet +
			`,"usage":{"input_tokens":0,"output_tokens":` + output + `,"cache_creation_input_tokens":0,"cache_read_input_tokens":` + cacheRead + `}}}`
	}
	tests := []struct {
		name  string
		files map[string][]string
		want  []claudeCounted
	}{
		{
			name: "keeps_parent_usage_when_sidechain_replays_message_with_new_request_id",
			files: map[string][]string{"projects/project-a/session-a.jsonl": {
				replayLine("msg-parent", "req-parent", false, "20", "10"),
				replayLine("msg-parent", "req-sidechain-replay", true, "50000", "10"),
				replayLine("msg-sidechain-answer", "req-sidechain-answer", true, "700", "30"),
			}},
			// Cache reads 20 + 700 = 720, not 50,720.
			want: []claudeCounted{
				{File: "projects/project-a/session-a.jsonl", MessageID: "msg-parent", RequestID: "req-parent", Usage: Usage{CacheRead: 20, Output: 10}},
				{File: "projects/project-a/session-a.jsonl", MessageID: "msg-sidechain-answer", RequestID: "req-sidechain-answer", Usage: Usage{CacheRead: 700, Output: 30}},
			},
		},
		{
			name: "refreshes_dedupe_indexes_when_parent_replaces_sidechain_replay",
			files: map[string][]string{"projects/project-a/session-a.jsonl": {
				replayLine("msg-parent", "req-sidechain-replay", true, "50000", "10"),
				replayLine("msg-parent", "req-parent", false, "20", "10"),
				replayLine("msg-parent", "req-parent", false, "5", "5"),
			}},
			want: []claudeCounted{
				{File: "projects/project-a/session-a.jsonl", MessageID: "msg-parent", RequestID: "req-parent", Usage: Usage{CacheRead: 20, Output: 10}},
			},
		},
		{
			name: "keeps_gateway_usage_from_distinct_sessions_with_reused_message_id",
			files: map[string][]string{
				"projects/project-a/session-a/chat.jsonl": {`{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":100,"output_tokens":1}}}`},
				"projects/project-a/session-b/chat.jsonl": {`{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":300,"output_tokens":1}}}`},
			},
			// Input 100 + 300 = 400.
			want: []claudeCounted{
				{File: "projects/project-a/session-a/chat.jsonl", MessageID: "ocgo", Usage: Usage{Input: 100, Output: 1}},
				{File: "projects/project-a/session-b/chat.jsonl", MessageID: "ocgo", Usage: Usage{Input: 300, Output: 1}},
			},
		},
		{
			name: "dedupes_requestless_usage_from_same_session_at_distinct_timestamps",
			files: map[string][]string{"projects/project-a/session-a/chat.jsonl": {
				`{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":100,"output_tokens":25}}}`,
				`{"type":"assistant","timestamp":"2026-05-22T02:34:41.000Z","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":100,"output_tokens":250,"speed":"standard"}}}`,
			}},
			want: []claudeCounted{
				{File: "projects/project-a/session-a/chat.jsonl", MessageID: "ocgo", Usage: Usage{Input: 100, Output: 250}},
			},
		},
		{
			name: "dedupes_copied_transcripts_with_the_same_serialized_session_id",
			files: map[string][]string{
				"projects/project-a/session-a/chat.jsonl": {`{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","sessionId":"session-a","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":100,"output_tokens":1}}}`},
				"projects/project-a/session-b/chat.jsonl": {`{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","sessionId":"session-a","message":{"id":"ocgo",` + sonnet + `,"usage":{"input_tokens":200,"output_tokens":1}}}`},
			},
			// The larger copy counts, where it is.
			want: []claudeCounted{
				{File: "projects/project-a/session-b/chat.jsonl", MessageID: "ocgo", Usage: Usage{Input: 200, Output: 1},
					CopiedFrom: []string{"projects/project-a/session-a/chat.jsonl"}},
			},
		},
		{
			name: "calculates_advisor_cost_with_the_advisor_model",
			files: map[string][]string{"projects/project-a/session-a/chat.jsonl": {
				`{"type":"assistant","timestamp":"2026-05-22T02:34:40.000Z","version":"1.2.3","sessionId":"session-a","message":{"id":"msg-parent","model":"main-model","usage":{"input_tokens":1,"output_tokens":2,"iterations":[{"type":"advisor_message","model":"advisor-model","input_tokens":10,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}]}},"requestId":"req-parent","costUSD":1.23}`,
			}},
			want: []claudeCounted{
				{File: "projects/project-a/session-a/chat.jsonl", MessageID: "msg-parent", RequestID: "req-parent", Model: "main-model",
					Usage: Usage{Input: 1, Output: 2}, Extra: []ModelUsage{{Model: "advisor-model", Usage: Usage{Input: 10, Output: 2}}}},
			},
		},
		{
			name: "counts_entries_whose_iteration_model_is_null",
			files: map[string][]string{"projects/project-a/session-a/chat.jsonl": {
				`{"type":"assistant","timestamp":"2026-09-12T04:38:42.296Z","version":"2.1.268","sessionId":"session-a","requestId":"req_1","message":{"id":"msg_1","model":"claude-fable-5-1","role":"assistant","usage":{"input_tokens":2,"cache_creation_input_tokens":55866,"cache_read_input_tokens":0,"output_tokens":289,"iterations":[{"type":"message","model":null,"input_tokens":2,"output_tokens":289,"cache_creation_input_tokens":55866,"cache_read_input_tokens":0}]}}}`,
			}},
			want: []claudeCounted{
				{File: "projects/project-a/session-a/chat.jsonl", MessageID: "msg_1", RequestID: "req_1", Model: "claude-fable-5-1",
					Usage: Usage{Input: 2, CacheCreation: 55866, Output: 289}},
			},
		},
		{
			// Also "should deduplicate entries across sessions" (loadSessionData):
			// one session keeps the usage, the other has none left.
			name: "should deduplicate entries with same message and request IDs",
			files: map[string][]string{
				"projects/project1/session1/file1.jsonl": {`{"type":"assistant","timestamp":"2025-01-10T10:00:00Z","message":{"id":"msg_123","usage":{"input_tokens":100,"output_tokens":50}},"requestId":"req_456","costUSD":0.001}`},
				"projects/project1/session2/file2.jsonl": {`{"type":"assistant","timestamp":"2025-01-15T10:00:00Z","message":{"id":"msg_123","usage":{"input_tokens":100,"output_tokens":50}},"requestId":"req_456","costUSD":0.001}`},
			},
			want: []claudeCounted{
				{File: "projects/project1/session1/file1.jsonl", MessageID: "msg_123", RequestID: "req_456", Usage: Usage{Input: 100, Output: 50},
					CopiedFrom: []string{"projects/project1/session2/file2.jsonl"}},
			},
		},
		{
			name: "keeps the duplicate with more usage tokens across files",
			files: map[string][]string{
				"projects/newer.jsonl": {`{"type":"assistant","timestamp":"2025-01-15T10:00:00Z","message":{"id":"msg_123","usage":{"input_tokens":200,"output_tokens":100}},"requestId":"req_456","costUSD":0.002}`},
				"projects/older.jsonl": {`{"type":"assistant","timestamp":"2025-01-10T10:00:00Z","message":{"id":"msg_123","usage":{"input_tokens":100,"output_tokens":50}},"requestId":"req_456","costUSD":0.001}`},
			},
			// ccusage dates it 2025-01-15: the newer file's copy counts.
			want: []claudeCounted{
				{File: "projects/newer.jsonl", MessageID: "msg_123", RequestID: "req_456", Usage: Usage{Input: 200, Output: 100},
					CopiedFrom: []string{"projects/older.jsonl"}},
			},
		},
		{
			name: "keeps the most complete duplicate usage entry",
			files: map[string][]string{"projects/project1/session1/chat.jsonl": {
				`{"type":"assistant","timestamp":"2025-01-10T10:00:00.000Z","message":{"id":"msg_123","model":"claude-opus-4-6","usage":{"input_tokens":100,"output_tokens":25,"cache_creation_input_tokens":10,"cache_read_input_tokens":5}},"requestId":"req_456","costUSD":0.001}`,
				`{"type":"assistant","timestamp":"2025-01-10T10:00:01.000Z","message":{"id":"msg_123","model":"claude-opus-4-6","usage":{"input_tokens":100,"output_tokens":250,"cache_creation_input_tokens":10,"cache_read_input_tokens":5,"speed":"standard"}},"requestId":"req_456","costUSD":0.01}`,
			}},
			want: []claudeCounted{
				{File: "projects/project1/session1/chat.jsonl", MessageID: "msg_123", RequestID: "req_456", Model: "claude-opus-4-6",
					Usage: Usage{Input: 100, CacheCreation: 10, CacheRead: 5, Output: 250}},
			},
		},
		{
			name: "handles deduplication correctly",
			files: map[string][]string{"projects/project1/session1/conversation1.jsonl": {
				`{"type":"assistant","timestamp":"2024-01-01T10:00:00.000Z","message":{"id":"msg1","usage":{"input_tokens":1000,"output_tokens":500},` + sonnet + `},"requestId":"req1","costUSD":0.01,"version":"1.0.0"}`,
				`{"type":"assistant","timestamp":"2024-01-01T10:00:00.000Z","message":{"id":"msg1","usage":{"input_tokens":1000,"output_tokens":500},` + sonnet + `},"requestId":"req1","costUSD":0.01,"version":"1.0.0"}`,
			}},
			want: []claudeCounted{
				{File: "projects/project1/session1/conversation1.jsonl", MessageID: "msg1", RequestID: "req1", Usage: Usage{Input: 1000, Output: 500}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var names []string
			for name := range tt.files {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, spacedOut := range []bool{false, true} {
				var full, sizes []*Session
				for _, name := range names {
					data := []byte(strings.Join(tt.files[name], "\n") + "\n")
					if spacedOut {
						data = spaced(data)
					}
					path := filepath.Join(dir, name)
					if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, data, 0o600); err != nil {
						t.Fatal(err)
					}
					f, s, err := readBoth(t, data, path, Options{})
					if err != nil {
						t.Fatal(err)
					}
					if f.Format != FormatClaude || f.WarningCount != 0 {
						t.Fatalf("%s read as %s with warnings %v", name, f.Format, f.Warnings)
					}
					sameButTexts(t, f, s)
					full, sizes = append(full, f), append(sizes, s)
				}
				for _, set := range [][]*Session{full, sizes} {
					Reconcile(set)
					got := countedCalls(t, dir, set)
					if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Usage{}, "OutputLowerBound"),
						cmpopts.IgnoreFields(claudeCounted{}, "Model"), cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("spaced %v, sizes only %v: calls counted (-want +got):\n%s", spacedOut, set[0] == sizes[0], diff)
					}
					for i, w := range tt.want {
						if w.Model != "" && i < len(got) && got[i].Model != w.Model {
							t.Errorf("call %d of model %q, want %q", i, got[i].Model, w.Model)
						}
					}
				}
			}
		})
	}
}

// countedCalls lists the calls of sessions that count, in file and line
// order, each with the files whose copies it stands for.
func countedCalls(t *testing.T, dir string, sessions []*Session) []claudeCounted {
	t.Helper()
	rel := func(path string) string {
		r, err := filepath.Rel(dir, path)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	var out []claudeCounted
	at := map[string]map[string]int{} // path, message id: index in out
	for _, s := range sessions {
		for _, c := range s.Calls {
			if c.CountedIn != "" || c.Usage == nil {
				continue
			}
			if at[s.Path] == nil {
				at[s.Path] = map[string]int{}
			}
			at[s.Path][c.MessageID] = len(out)
			out = append(out, claudeCounted{File: rel(s.Path), MessageID: c.MessageID, RequestID: c.RequestID,
				Usage: *c.Usage, Extra: c.Extra, Model: c.Model})
		}
	}
	for _, s := range sessions {
		for _, c := range s.Calls {
			if c.CountedIn == "" {
				continue
			}
			i, ok := at[c.CountedIn][c.MessageID]
			if !ok {
				t.Fatalf("%s line %d is counted in %s, which counts no call of message %s", s.Path, c.Line, c.CountedIn, c.MessageID)
			}
			out[i].CopiedFrom = append(out[i].CopiedFrom, rel(s.Path))
		}
	}
	return out
}

// TestReplaysFixture reads testdata/claude/replays.jsonl, a session with a
// /btw-style sidechain replay and advisor usage, and pins its calls.
func TestReplaysFixture(t *testing.T) {
	full, sizes, err := readBoth(t, mustRead(t, fixture("../claude/replays.jsonl")), "replays.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameButTexts(t, full, sizes)
	type call struct {
		Line                 int
		MessageID, RequestID string
		Sidechain            bool
		Usage                Usage
		Extra                []ModelUsage
		Text                 string
		ToolCalls            int
	}
	var got []call
	for _, c := range full.Calls {
		got = append(got, call{c.Line, c.MessageID, c.RequestID, c.Sidechain, *c.Usage, c.Extra, c.Text, len(c.ToolCalls)})
	}
	opus := func(u Usage) []ModelUsage { return []ModelUsage{{Model: "claude-opus-4-6", Usage: u}} }
	want := []call{
		// Line 4 replays msg-parent: its 50,000 cache reads and its text are not taken again.
		{2, "msg-parent", "req-parent", false, Usage{Input: 3, CacheRead: 20, Output: 10}, nil, "Building.", 1},
		{5, "msg-sidechain-answer", "req-sidechain-answer", true, Usage{Input: 1, CacheRead: 700, Output: 30},
			opus(Usage{Input: 400, Output: 12}), "Yes.", 0},
		// Line 7 repeats msg-main with its first advisor entry grown (output 3
		// to 9) and a second one: each entry keeps its largest usage.
		{6, "msg-main", "req-main", false, Usage{Input: 2, CacheCreation: 50, CacheRead: 30, Output: 5},
			append(opus(Usage{Input: 100, CacheCreation: 7, Output: 9}), opus(Usage{Input: 40, Output: 1})...), "Done. All green.", 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"claude-sonnet-4-5", "claude-opus-4-6"}, full.Models); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/internal/corpus"
)

func fixture(name string) string { return filepath.Join("..", "testdata", "transcripts", name) }

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// compareJSON compares raw JSON by meaning, not bytes.
var compareJSON = cmp.FilterValues(func(a, b json.RawMessage) bool {
	return len(a) > 0 && len(b) > 0
}, cmp.Comparer(func(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return cmp.Equal(x, y)
}))

func TestReadFixtures(t *testing.T) {
	lock := "     1→{\n     2→  \"name\": \"café\",\n     3→}\n"
	summary := "This session is being continued from a previous conversation. Summary: read a lock file."
	tests := []struct {
		file string
		want *Session
	}{
		{"claude.jsonl", &Session{
			Format: FormatClaude, ID: "sess-claude-1", Title: "Lock file trouble", Version: "2.1.22",
			Models:  []string{"claude-sonnet-4-5"},
			Leading: Call{Index: -1, Prompts: []Prompt{{Line: 3, Text: "read the lock file"}}},
			Calls: []Call{
				{
					Index: 0, Line: 4, Time: ts("2026-01-02T10:00:01Z"), Model: "claude-sonnet-4-5",
					MessageID: "msg_1", RequestID: "req_1", SessionID: "sess-claude-1",
					// Both lines of msg_1 repeat the stream-start usage; neither records a stop_reason.
					Usage:     &Usage{Input: 3, CacheCreation: 1000, CacheRead: 5000, Output: 1, OutputLowerBound: true},
					ToolCalls: []ToolCall{{ID: "toolu_1", Name: "Read", Input: raw(`{"file_path":"/p/package-lock.json"}`)}},
					Results: []ToolResult{{
						CallID: "toolu_1", Tool: "Read", Input: raw(`{"file_path":"/p/package-lock.json"}`), CallIndex: 0,
						Line: 6, Time: ts("2026-01-02T10:00:03Z"), Text: lock,
					}},
				},
				{
					Index: 1, Line: 7, Time: ts("2026-01-02T10:00:04Z"), Model: "claude-sonnet-4-5",
					MessageID: "msg_2", RequestID: "req_2", SessionID: "sess-claude-1",
					// Three lines, one usage: 1,500 five-minute + 500 one-hour writes replace cache_creation_input_tokens.
					Usage: &Usage{Input: 5, CacheCreation: 2000, CacheCreation1h: 500, CacheRead: 6000, Output: 50},
					Text:  "Two searches.",
					ToolCalls: []ToolCall{
						{ID: "toolu_2", Name: "Bash", Input: raw(`{"command":"npm ls"}`)},
						{ID: "toolu_3", Name: "Grep", Input: raw(`{"pattern":"lodash"}`)},
					},
					Results: []ToolResult{
						{CallID: "toolu_3", Tool: "Grep", Input: raw(`{"pattern":"lodash"}`), CallIndex: 1, Line: 10,
							Time: ts("2026-01-02T10:00:05Z"), Text: "a.js:1:lodash\nb.js:2:lodash", Images: 1},
						{CallID: "toolu_2", Tool: "Bash", Input: raw(`{"command":"npm ls"}`), CallIndex: 1, Line: 11,
							Time: ts("2026-01-02T10:00:06Z"), Text: "<tool_use_error>npm: not found</tool_use_error>", IsError: true},
					},
					Prompts: []Prompt{{Line: 16, Text: summary, Meta: true}},
				},
				{
					Index: 2, Line: 17, Time: ts("2026-01-02T10:01:02Z"), Model: "claude-sonnet-4-5", Segment: 1,
					MessageID: "msg_3", RequestID: "req_3", SessionID: "sess-claude-1",
					Usage: &Usage{Input: 7, CacheCreation: 300, Output: 20}, Text: "Done.",
					Prompts: []Prompt{{Line: 21, Text: "café \uFFFD"}},
				},
			},
			Events: []Event{{Kind: EventCompaction, Line: 15, Time: ts("2026-01-02T10:01:00Z"), BeforeCall: 2,
				Trigger: "manual", PreTokens: 9000, Summary: summary}},
			Warnings: []Warning{
				{Line: 18, Message: `invalid JSON: cannot parse object: cannot find opening '"" for object key`},
				{Line: 21, Message: "invalid UTF-8 replaced with U+FFFD"},
			},
			WarningCount: 2,
			Skipped: map[string]int{
				"file-history-snapshot": 1, "assistant (API error)": 1, "assistant (<synthetic>)": 1,
				"progress": 1, "brand-new-type": 1, "user (repeated uuid)": 1,
			},
			Lines: 21,
		}},
		{"codex.jsonl", &Session{
			Format: FormatCodex, ID: "sess-codex-1", Version: "0.128.0", Started: ts("2026-05-02T20:55:00Z"),
			Models:  []string{"gpt-5.5", "gpt-5.4"},
			Leading: Call{Index: -1, Prompts: []Prompt{{Line: 3, Text: "list files"}}},
			Calls: []Call{
				{
					Index: 0, Line: 5, Time: ts("2026-05-02T20:55:04Z"), Model: "gpt-5.5",
					// input_tokens 1,000 includes 200 cached.
					Usage: &Usage{Input: 800, CacheRead: 200, Output: 50, Reasoning: 10,
						At: ts("2026-05-02T20:55:07Z"), LoggedTotal: 1050},
					ToolCalls: []ToolCall{{ID: "c1", Name: "exec_command", Input: raw(`{"cmd":"ls"}`)}},
					Results: []ToolResult{{CallID: "c1", Tool: "exec_command", Input: raw(`{"cmd":"ls"}`), Line: 7,
						Time: ts("2026-05-02T20:55:06Z"),
						Text: "Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\na\nb\n"}},
				},
				{
					Index: 1, Line: 11, Time: ts("2026-05-02T20:55:10Z"), Model: "gpt-5.5",
					// The repeated total (line 10) and the info-less event (line 9) are not calls.
					Usage: &Usage{Input: 500, CacheRead: 800, Output: 30, At: ts("2026-05-02T20:55:15Z"), LoggedTotal: 1330},
					ToolCalls: []ToolCall{
						{ID: "c2", Name: "apply_patch", Input: raw(`"*** Begin Patch\n*** Add File: x\n+hi\n*** End Patch"`)},
						{ID: "c3", Name: "exec_command", Input: raw(`{"cmd":"false"}`)},
					},
					Results: []ToolResult{
						{CallID: "c2", Tool: "apply_patch", Input: raw(`"*** Begin Patch\n*** Add File: x\n+hi\n*** End Patch"`),
							CallIndex: 1, Line: 13, Time: ts("2026-05-02T20:55:12Z"), Text: "Success. Updated 1 file.", Images: 1},
						{CallID: "c3", Tool: "exec_command", Input: raw(`{"cmd":"false"}`), CallIndex: 1, Line: 15,
							Time: ts("2026-05-02T20:55:14Z"), Text: "Process exited with code 1\nOutput:\n", IsError: true},
					},
				},
				{
					Index: 2, Line: 20, Time: ts("2026-05-02T20:55:19Z"), Model: "gpt-5.4", Segment: 1,
					Usage: &Usage{Input: 50000, CacheRead: 250000, Output: 100, Fast: true,
						At: ts("2026-05-02T20:55:20Z"), LoggedTotal: 300100},
					Text:    "Done.",
					Results: []ToolResult{{CallID: "c999", CallIndex: -1, Line: 22, Time: ts("2026-05-02T20:55:21Z"), Text: "orphan"}},
				},
			},
			Events:       []Event{{Kind: EventCompaction, Line: 17, Time: ts("2026-05-02T20:55:16Z"), BeforeCall: 2}},
			Warnings:     []Warning{{Line: 22, Message: `tool result for unknown call id "c999"`}},
			WarningCount: 1,
			Skipped: map[string]int{
				"event_msg/user_message": 1, "event_msg/token_count (no info)": 1,
				"event_msg/token_count (total unchanged)": 1, "event_msg/context_compacted (mirrors compacted)": 1, "event_msg/patch_apply_end": 1,
			},
			Lines: 22,
		}},
		{"antigravity.jsonl", &Session{
			Format: FormatAntigravity, ID: "antigravity",
			Leading: Call{Index: -1, Prompts: []Prompt{{Line: 1, Text: "<USER_REQUEST>\nlist the repo\n</USER_REQUEST>"}}},
			Calls: []Call{
				{
					Index: 0, Line: 3, Time: ts("2026-06-18T22:17:40Z"), Text: "Looking.",
					ToolCalls: []ToolCall{
						{ID: "step2.0", Name: "list_dir", Input: raw(`{"DirectoryPath":"d:\\repo","toolAction":"Listing"}`)},
						{ID: "step2.1", Name: "run_command", Input: raw(`{"CommandLine":"git status"}`)},
					},
					Results: []ToolResult{
						{CallID: "step2.0", Tool: "list_dir", Input: raw(`{"DirectoryPath":"d:\\repo","toolAction":"Listing"}`),
							Line: 4, Time: ts("2026-06-18T22:17:51Z"), Text: "Created At: x\nCompleted At: y\nEmpty directory", Status: "DONE"},
						{CallID: "step2.1", Tool: "run_command", Input: raw(`{"CommandLine":"git status"}`), Line: 5,
							Time: ts("2026-06-18T22:17:52Z"), Text: "Tool is running as a background task with task id: t/task-4",
							Status: "RUNNING", Clipped: true},
					},
				},
				{
					Index: 1, Line: 6, Time: ts("2026-06-18T22:18:00Z"),
					ToolCalls: []ToolCall{{ID: "step5.0", Name: "view_file", Input: raw(`{"AbsolutePath":"d:\\repo\\x.md"}`)}},
					Results: []ToolResult{{CallID: "step5.0", Tool: "view_file", Input: raw(`{"AbsolutePath":"d:\\repo\\x.md"}`),
						CallIndex: 1, Line: 7, Time: ts("2026-06-18T22:18:01Z"),
						Text: "Error invalid tool call: x.md does not exist", IsError: true, Status: "DONE"}},
				},
				{
					Index: 2, Line: 9, Time: ts("2026-06-18T22:18:03Z"), Segment: 1, Text: "Done.",
					Results: []ToolResult{{Tool: "view_file", CallIndex: -1, Line: 10, Time: ts("2026-06-18T22:18:04Z"),
						Text: "stray", IsError: true, Status: "ERROR"}},
				},
			},
			Events:       []Event{{Kind: EventCompaction, Line: 8, Time: ts("2026-06-18T22:18:02Z"), BeforeCall: 2, Summary: "# Resuming from a compaction\nsummary"}},
			Warnings:     []Warning{{Line: 10, Message: "VIEW_FILE step answers no pending tool call"}},
			WarningCount: 1,
			Skipped:      map[string]int{"CONVERSATION_HISTORY": 1},
			Lines:        10,
		}},
		{"generic.jsonl", &Session{
			Format: FormatGeneric, ID: "sess-generic-1", Title: "Generic demo",
			Models: []string{"claude-haiku-4-5", "unknown-model-x"},
			Leading: Call{Index: -1, Prompts: []Prompt{
				{Line: 2, Text: "You are a helpful agent.", Meta: true},
				{Line: 3, Text: "find TODOs"},
			}},
			Calls: []Call{
				{
					Index: 0, Line: 4, Time: ts("2026-03-01T09:00:01Z"), Model: "claude-haiku-4-5", Text: "Searching.",
					Usage: &Usage{Input: 100, CacheRead: 900, Output: 40},
					ToolCalls: []ToolCall{
						{ID: "t1", Name: "grep", Input: raw(`{"pattern":"TODO"}`)},
						{ID: "t2", Name: "read_file", Input: raw(`{"path":"a.go"}`)},
					},
					Results: []ToolResult{
						{CallID: "t1", Tool: "grep", Input: raw(`{"pattern":"TODO"}`), Line: 5, Text: "a.go:3: // TODO: ünïcode"},
						{CallID: "t2", Tool: "read_file", Input: raw(`{"path":"a.go"}`), Line: 6, Text: "package a\n", Images: 1},
					},
				},
				{
					Index: 1, Line: 8, Model: "unknown-model-x", Segment: 1, Text: "Done.",
					Usage:   &Usage{Input: 10, Output: 5},
					Results: []ToolResult{{CallID: "nope", Tool: "shell", CallIndex: -1, Line: 9, Text: "late"}},
				},
			},
			Events: []Event{{Kind: EventCompaction, Line: 7, BeforeCall: 1, Summary: "summary of the work"}},
			// A result that names its tool is still an orphan when its id
			// matches no call.
			Warnings:     []Warning{{Line: 9, Message: `tool result for unknown call id "nope"`}},
			WarningCount: 1,
			Skipped:      map[string]int{"role narrator": 1},
			Lines:        10,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ReadFile(fixture(tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Path = fixture(tt.file)
			// Where a text starts in its line is TestResultText's.
			ignoreAt := cmpopts.IgnoreFields(ToolResult{}, "TextAt")
			if diff := cmp.Diff(tt.want, got, compareJSON, cmpopts.EquateEmpty(), ignoreAt); diff != "" {
				t.Errorf("session mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMaxLineBytes: a line over the limit is skipped with a warning naming
// its line, before or after the format is known; the lines around it are
// read, and line numbers stay those of the file.
func TestMaxLineBytes(t *testing.T) {
	huge := `{"role":"tool","tool_call_id":"t1","content":"` + strings.Repeat("x", 200) + `"}`
	in := strings.Join([]string{
		huge,
		`{"role":"assistant","model":"m","content":"hi","tool_calls":[{"id":"t1","name":"grep","arguments":{}}]}`,
		huge,
		`{"role":"tool","tool_call_id":"t1","content":"ok"}`,
		strings.Repeat("y", 300), // the final line, without a newline
	}, "\n")
	s, err := Read(strings.NewReader(in), "t.jsonl", Options{MaxLineBytes: 128})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range s.Warnings {
		got = append(got, fmt.Sprintf("%d: %s", w.Line, w.Message))
	}
	n := len(huge)
	want := []string{
		fmt.Sprintf("1: line of %d bytes is longer than the 128-byte limit (--max-line-bytes); skipped", n),
		fmt.Sprintf("3: line of %d bytes is longer than the 128-byte limit (--max-line-bytes); skipped", n),
		"5: line of 300 bytes is longer than the 128-byte limit (--max-line-bytes); skipped",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if s.Lines != 5 || len(s.Calls) != 1 || len(s.Calls[0].Results) != 1 || s.Calls[0].Results[0].Bytes() != 2 {
		t.Errorf("%d lines, %d calls (%+v); want 5 lines, one call with the 2-byte result", s.Lines, len(s.Calls), s.Calls)
	}

	// Nothing but lines over the limit: not a transcript, and said why.
	_, err = Read(strings.NewReader(huge+"\n"+huge+"\n"), "t.jsonl", Options{MaxLineBytes: 128})
	var nt *NotTranscriptError
	if !errors.As(err, &nt) || !strings.Contains(err.Error(), "every line is longer than the 128-byte limit") {
		t.Errorf("only long lines: %v", err)
	}
}

// TestReadFileDevice: a device never ends; it is refused, not read.
func TestReadFileDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile("/dev/zero", Options{MaxLineBytes: 1 << 20}); done <- err }()
	select {
	case err := <-done:
		var nt *NotTranscriptError
		if !errors.As(err, &nt) || nt.Reason != "it is a device, not a file" {
			t.Errorf("ReadFile(/dev/zero) = %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("ReadFile(/dev/zero) is still reading")
	}
}

// TestReadKeepsRoomOfItsCalls: Calls, sized from the log's size before it
// is read, keeps no more room than its calls take once read in full (a
// list holds thousands of sessions); read for sizes only, it is left as
// it grew, since such a session is summed and let go.
func TestReadKeepsRoomOfItsCalls(t *testing.T) {
	var b bytes.Buffer
	// Results of 8 KiB: more bytes per call than the estimate assumes.
	if _, err := corpus.WriteSession(&b, 7, 400, 8192); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		sizesOnly bool
	}{{"in full", false}, {"sizes only", true}} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Read(bytes.NewReader(b.Bytes()), "s.jsonl", Options{SizesOnly: tt.sizesOnly})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Calls) != 400 {
				t.Fatalf("%d calls, want 400", len(s.Calls))
			}
			spare := cap(s.Calls) - len(s.Calls)
			if !tt.sizesOnly && spare > len(s.Calls)/8 {
				t.Errorf("room for %d calls more than its %d", spare, len(s.Calls))
			}
			if tt.sizesOnly && spare <= len(s.Calls)/8 {
				t.Errorf("the estimate from its size was close (%d spare): the fixture no longer tests the room given back", spare)
			}
		})
	}
}

// TestEndlessStream: a stream without a known length (standard input)
// whose line goes on without a line break is read no further than 16
// longest lines of it: after records, with a warning saying reading
// stopped there; before any, as no transcript. It was read forever.
func TestEndlessStream(t *testing.T) {
	claude, err := os.ReadFile(fixture("claude.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range [][]byte{nil, claude} {
		done := make(chan struct{})
		var s *Session
		go func() {
			defer close(done)
			s, err = Read(io.MultiReader(bytes.NewReader(prefix), endless{}), "stdin", Options{MaxLineBytes: 1 << 10})
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("an endless line is still being read")
		}
		if prefix == nil {
			var nt *NotTranscriptError
			if !errors.As(err, &nt) || !strings.Contains(err.Error(), "line 1 goes on past") {
				t.Errorf("endless input alone: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		last := s.Warnings[len(s.Warnings)-1]
		if lines := bytes.Count(claude, []byte("\n")); last.Line != lines+1 || !strings.Contains(last.Message, "without a line break: reading stopped there") || len(s.Calls) == 0 {
			t.Errorf("after %d lines: %d calls, last warning %+v", lines, len(s.Calls), last)
		}
	}
}

// endless is an input of 'x' that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

package transcript

import (
	"path/filepath"
	"testing"

	"github.com/spillway-dev/spillway/internal/sharedtest"
)

// TestCorpusCounts pins what the readers find in the real logs to the
// counts recorded for them in the shared corpus's SOURCES.md.
func TestCorpusCounts(t *testing.T) {
	type counts struct {
		toolCalls, results, biggest, errors, images, compactions, unlinked int
	}
	want := map[string]counts{
		"claude-code_will-it-rain_v2.1.22-autocompact-repeated-reads-progress.jsonl":   {146, 146, 5987, 4, 0, 1, 0},
		"claude-code_scout_v2.1.121-images-800KB-line-large-reads.jsonl":               {35, 35, 46116, 0, 6, 0, 0},
		"claude-code_sniffly_v1.0.17-summary-31KB-bash-notebook.jsonl":                 {59, 58, 31023, 4, 0, 0, 0},
		"claude-code_blockchain-dex-events_v2.1.146-agent-tool-final-usage.jsonl":      {112, 112, 11118, 2, 0, 0, 0},
		"claude-code_claude-reliability_v2.1.14-task-subagent-placeholder-usage.jsonl": {39, 39, 5423, 0, 0, 0, 0},
		"claude-code_fasthooks_v2.0.76-manual-compact-tool-errors.jsonl":               {10, 10, 864, 2, 0, 1, 0},
		"claude-code_fasthooks_v2.0.76-subagent-sidechain-file.jsonl":                  {0, 0, 0, 0, 0, 0, 0},
		"claude-code_privacy-x402_v2.1.126-bash-heavy-ai-title.jsonl":                  {32, 32, 4548, 1, 0, 0, 0},
		"codex_edgerunner_0.144.1-custom-tool-exec-web-search.jsonl":                   {171, 170, 40156, 5, 0, 0, 0}, // 5 "Script failed"
		"codex_raze_0.114.0-exec-command-rg-heavy.jsonl":                               {38, 38, 38553, 2, 0, 0, 0},
		"codex_openclaw-agent_0.118.0-alpha-desktop-vscode.jsonl":                      {13, 12, 9108, 0, 0, 0, 0},
		"codex_solhawk-agent_0.128.0-exec-command.jsonl":                               {7, 6, 9020, 0, 0, 0, 0},
		"codex_xeus_0.129.0-web-search-no-tools.jsonl":                                 {1, 0, 0, 0, 0, 0, 0},
		"antigravity_xeus_steps-subagents-truncated-fields.jsonl":                      {1267, 1267, 4121, 43, 0, 4, 0},
	}
	files := sharedtest.Transcripts(t, "*.jsonl")
	if len(files) != len(want) {
		t.Errorf("%d shared transcripts, %d expected", len(files), len(want))
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expected counts for %s", name)
			}
			s, err := ReadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got counts
			for _, c := range s.Calls {
				got.toolCalls += len(c.ToolCalls)
				for _, p := range c.Prompts {
					got.images += p.Images
				}
			}
			for _, p := range s.Leading.Prompts {
				got.images += p.Images
			}
			for _, r := range s.Results() {
				got.results++
				got.biggest = max(got.biggest, r.Bytes())
				got.images += r.Images
				if r.IsError {
					got.errors++
				}
				if r.CallIndex < 0 {
					got.unlinked++
				}
			}
			for _, e := range s.Events {
				if e.Kind == EventCompaction {
					got.compactions++
				}
			}
			if got != w {
				t.Errorf("got %+v, want %+v", got, w)
			}
		})
	}
}

// TestCorpusReconcile reads the real Claude Code logs together: they are
// different sessions, and no response of one is copied into another.
func TestCorpusReconcile(t *testing.T) {
	var sessions []*Session
	for _, path := range sharedtest.Transcripts(t, "claude-code_*.jsonl") {
		s, err := ReadFile(path, Options{SizesOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, s)
	}
	Reconcile(sessions)
	for _, s := range sessions {
		for _, c := range s.Calls {
			if c.CountedIn != "" {
				t.Errorf("%s line %d (message %s) is marked counted in %s", filepath.Base(s.Path), c.Line, c.MessageID, c.CountedIn)
			}
		}
	}
	// Reading a session next to a copy of itself marks every call with
	// usage in the copy, and none in the original (the path sorts first).
	if len(sessions) > 0 {
		s := sessions[0]
		dup := *s
		dup.Path = s.Path + ".copy"
		dup.Calls = append([]Call(nil), s.Calls...)
		Reconcile([]*Session{&dup, s})
		copies, withUsage := 0, 0
		for i := range s.Calls {
			if s.Calls[i].CountedIn != "" {
				t.Errorf("original call %d marked counted in %s", i, s.Calls[i].CountedIn)
			}
			if s.Calls[i].Usage != nil && s.Calls[i].MessageID != "" {
				withUsage++
			}
			if dup.Calls[i].CountedIn == s.Path {
				copies++
			}
		}
		if copies != withUsage || copies == 0 {
			t.Errorf("%d of %d calls marked in the copy", copies, withUsage)
		}
	}
}

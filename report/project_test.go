package report

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/index"
)

// tablesWriter keeps the Parquet rows of every session reported; Render
// runs on several goroutines at once.
type tablesWriter struct {
	mu   sync.Mutex
	rows []SessionRow
}

func (w *tablesWriter) Begin() error { return nil }
func (w *tablesWriter) Render(s *Session) ([]byte, error) {
	rows := Tables(s).Sessions
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rows = append(w.rows, rows...)
	return nil, nil
}
func (w *tablesWriter) Write([]byte) error { return nil }
func (w *tablesWriter) End() error         { return nil }

// TestProjectsAgree: `report --by project`, the Parquet project column and
// the session index name every session's project alike: the cwd its log
// records (past a long first line too, which the index's peek at the
// log's start does not hold), else its Claude Code folder decoded; a
// sub-agent's is its parent's.
func TestProjectsAgree(t *testing.T) {
	root := t.TempDir()
	copyFixture := func(from, to string, edit func(string) string) string {
		data, err := os.ReadFile(filepath.Join(byFixture, from))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, to)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(edit(string(data))), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	same := func(s string) string { return s }
	s1 := copyFixture("claude/projects/-home-dev-shop/s1.jsonl", "claude/projects/-home-dev-shop/s1.jsonl", same)
	// The sub-agent's log records no cwd: its parent's folder names it.
	agent := copyFixture("claude/projects/-home-dev-shop/s1/subagents/agent-x.jsonl", "claude/projects/-home-dev-shop/s1/subagents/agent-x.jsonl",
		func(s string) string { return strings.ReplaceAll(s, `"cwd":"/home/dev/shop",`, "") })
	s2 := copyFixture("claude/projects/-home-dev-blog/s2.jsonl", "claude/projects/-home-dev-blog/s2.jsonl", same)
	// s3 worked in /home/dev/big.d, which it records after 100 KB of a
	// first line that records no cwd.
	s3 := copyFixture("claude/projects/-home-dev-blog/s2.jsonl", "claude/projects/-home-dev-big/s3.jsonl", func(s string) string {
		return `{"type":"summary","summary":"` + strings.Repeat("x", 100<<10) + `","leafUuid":"b0"}` + "\n" +
			strings.ReplaceAll(strings.ReplaceAll(s, `"sessionId":"s2",`, `"sessionId":"s3","cwd":"/home/dev/big.d",`), `"mb1"`, `"mb3"`)
	})
	c1 := copyFixture("codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-c1.jsonl", "codex/sessions/2026/03/02/rollout-2026-03-02T10-00-00-c1.jsonl", same)
	want := map[string]string{s1: "/home/dev/shop", agent: "/home/dev/shop", s2: "/home/dev/blog", s3: "/home/dev/big.d", c1: "/home/dev/shop"}
	inputs := []string{filepath.Join(root, "claude"), filepath.Join(root, "codex")}
	none, _ := policy.Preset("none")
	opt := Options{Prices: pricing.Default(), Policy: none}

	t.Run("parquet", func(t *testing.T) {
		var w tablesWriter
		if _, err := Generate(inputs, nil, opt, &w, io.Discard); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range w.rows {
			if r.Project != nil {
				got[r.Path] = *r.Project
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("project column (-want +got):\n%s", diff)
		}
	})
	t.Run("by project", func(t *testing.T) {
		var got []string
		for _, g := range groupJSON(t, root, Grouping{By: "project", Zone: time.UTC}).Groups {
			got = append(got, g.Key+" "+strings.Repeat("|", g.Sessions))
		}
		if diff := cmp.Diff([]string{"/home/dev/big.d |", "/home/dev/blog |", "/home/dev/shop ||"}, got); diff != "" {
			t.Errorf("projects and their sessions (-want +got):\n%s", diff)
		}
	})
	t.Run("index", func(t *testing.T) {
		resolved, err := app.Resolve(inputs, app.SystemEnv())
		if err != nil {
			t.Fatal(err)
		}
		ix, err := index.Open(index.Options{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		entries, _, err := ix.Scan(context.Background(), resolved, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, e := range entries {
			got[e.Path] = e.Project
		}
		delete(want, agent) // counted in its parent's entry
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("index projects (-want +got):\n%s", diff)
		}
	})
}

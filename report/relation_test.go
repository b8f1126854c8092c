package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/transcript"
)

// TestRelation checks that a Codex fork or sub-agent names its parent in
// the JSON and the text report, and a session of its own says "none".
func TestRelation(t *testing.T) {
	tests := []struct {
		file, parent, relation, text string
	}{
		{"fork-replay/2026-05-12T08-03-00-fork.jsonl", "parent-xyz", "fork", " · session fork-abc · fork of parent-xyz\n"},
		{"subagent-replay/2026-05-12T08-03-00-subagent.jsonl", "parent-xyz", "subagent", " · session subagent-abc · sub-agent of parent-xyz\n"},
		{"fork-replay/2026-05-12T08-00-00-parent.jsonl", "", "none", " · session 2026-05-12T08-00-00-parent\n"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := transcript.ReadFile(filepath.Join("..", "testdata", "codex", tt.file), transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rs := buildWith(t, s, pricing.Default(), "none")
			for _, format := range []string{"json", "text"} {
				var buf bytes.Buffer
				w, _ := NewWriter(format, &buf, "test prices")
				if err := w.Begin(); err != nil {
					t.Fatal(err)
				}
				writeSession(t, w, rs)
				if err := w.End(); err != nil {
					t.Fatal(err)
				}
				if format == "text" {
					if !strings.Contains(buf.String(), tt.text) {
						t.Errorf("text report lacks %q:\n%s", tt.text, buf.String())
					}
					continue
				}
				var doc struct {
					Sessions []struct {
						ParentID string `json:"parent_id"`
						Relation string `json:"relation"`
					}
				}
				if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
					t.Fatal(err)
				}
				if got := doc.Sessions[0]; got.ParentID != tt.parent || got.Relation != tt.relation {
					t.Errorf("parent_id %q relation %q, want %q %q", got.ParentID, got.Relation, tt.parent, tt.relation)
				}
			}
		})
	}
}

// TestNoModel: usage the log names no model for has an unknown cost, and
// the text report says why rather than naming an empty model.
func TestNoModel(t *testing.T) {
	s, err := transcript.ReadFile(filepath.Join("..", "testdata", "codex", "no-model", "legacy.jsonl"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := buildWith(t, s, pricing.Default(), "none")
	if rs.Totals.CostUSD != nil || rs.Calls[0].CostUSD != nil {
		t.Fatalf("cost %v, call cost %v; want unknown", rs.Totals.CostUSD, rs.Calls[0].CostUSD)
	}
	var buf bytes.Buffer
	w, _ := NewWriter("text", &buf, "test prices")
	writeSession(t, w, rs)
	const want = "  cost: unknown (no price for calls the log names no model for; priced calls: $0.000000)\n"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, buf.String())
	}
}

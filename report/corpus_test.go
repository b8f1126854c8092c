package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/sharedtest"
	"github.com/spillway-dev/spillway/transcript"
)

// oracleSession holds the fields of ccusage 20.0.24's session report that
// spillway must reproduce.
type oracleSession struct {
	SessionID           string  `json:"sessionId"`
	InputTokens         int64   `json:"inputTokens"`
	OutputTokens        int64   `json:"outputTokens"`
	CacheCreationTokens int64   `json:"cacheCreationTokens"`
	CacheReadTokens     int64   `json:"cacheReadTokens"`
	TotalCost           float64 `json:"totalCost"` // Claude
	CostUSD             float64 `json:"costUSD"`   // Codex
	ModelBreakdowns     []struct {
		ModelName string  `json:"modelName"`
		Cost      float64 `json:"cost"`
	} `json:"modelBreakdowns"`
	ModelsUsed []string                   `json:"modelsUsed"`
	Models     map[string]json.RawMessage `json:"models"`
}

func loadOracle(t *testing.T) map[string]oracleSession {
	t.Helper()
	dir := sharedtest.Dir(t)
	out := map[string]oracleSession{}
	for _, name := range []string{"shared-claude.json", "shared-codex.json"} {
		data, err := os.ReadFile(filepath.Join(dir, "oracle", name))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct{ Sessions []oracleSession }
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range doc.Sessions {
			out[s.SessionID] = s
		}
	}
	return out
}

// TestOracle checks every Claude Code and Codex transcript against
// ccusage's totals: tokens exactly, cost to 1e-6 USD.
func TestOracle(t *testing.T) {
	oracle := loadOracle(t)
	files := append(sharedtest.Transcripts(t, "claude-code_*.jsonl"), sharedtest.Transcripts(t, "codex_*.jsonl")...)
	if len(files) != len(oracle) {
		t.Errorf("%d transcripts but %d oracle sessions", len(files), len(oracle))
	}
	prices := pricing.Default()
	for _, path := range files {
		stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(stem, func(t *testing.T) {
			want, ok := oracle[stem]
			if !ok {
				t.Fatalf("no oracle entry for %s", stem)
			}
			s, err := transcript.ReadFile(path, transcript.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := buildWith(t, s, prices, "none")
			got := r.Totals.Recorded
			wantTok := Tokens{Input: want.InputTokens, Output: want.OutputTokens, CacheCreation: want.CacheCreationTokens, CacheRead: want.CacheReadTokens}
			if got != wantTok {
				t.Errorf("tokens = %+v, ccusage %+v", got, wantTok)
			}
			wantCost := want.TotalCost
			if strings.HasPrefix(stem, "codex_") {
				wantCost = want.CostUSD
			}
			if r.Totals.CostUSD == nil {
				t.Fatalf("cost unknown (unpriced %v), ccusage %.6f", r.Totals.UnpricedModels, wantCost)
			}
			if d := math.Abs(*r.Totals.CostUSD - wantCost); d > 1e-6 {
				t.Errorf("cost = %.9f, ccusage %.9f (diff %.2g)", *r.Totals.CostUSD, wantCost, d)
			}
			for _, mb := range want.ModelBreakdowns {
				var found bool
				for _, m := range r.Totals.ByModel {
					if m.Model == mb.ModelName {
						found = true
						if m.CostUSD == nil || math.Abs(*m.CostUSD-mb.Cost) > 1e-6 {
							t.Errorf("model %s cost = %v, ccusage %.9f", mb.ModelName, m.CostUSD, mb.Cost)
						}
					}
				}
				if !found {
					t.Errorf("model %s missing from by_model", mb.ModelName)
				}
			}
			if r.Format == string(transcript.FormatCodex) {
				for m := range want.Models {
					if !contains(r.Models, m) {
						t.Errorf("model %s missing, have %v", m, r.Models)
					}
				}
			} else {
				for _, m := range want.ModelsUsed {
					if !contains(r.Models, m) {
						t.Errorf("model %s missing, have %v", m, r.Models)
					}
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

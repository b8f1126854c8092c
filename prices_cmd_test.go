package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/google/go-cmp/cmp"
)

// TestPricesModels pins what spillway prices shows for a name priced by the
// ccusage layers exactly, one found through a Bedrock prefix, one an
// OpenRouter row, and a different model left unpriced (go test -update
// rewrites the golden file).
func TestPricesModels(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"prices", "glm-5", "bedrock/anthropic.claude-sonnet-4-5", "openrouter/moonshotai/kimi-k2", "claude-opus-4-9"}, strings.NewReader(""), &out, &errb)
	if code != 0 || errb.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	golden.RequireEqual(t, out.Bytes())
}

func TestPricesJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"prices", "--format", "json", "glm-5.1", "us.anthropic.claude-opus-4-7", "global.anthropic.claude-opus-4-7", "gpt-5.5-mini"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var got pricesOutput
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	type brief struct {
		Model, Match, Key, Provider string
		Rules                       []string
		Input, Output               float64
	}
	var briefs []brief
	for _, m := range got.Models {
		b := brief{Model: m.Model, Match: m.Match, Key: m.Key, Provider: m.Provider, Rules: m.Rules}
		if len(m.Rates) >= 2 {
			b.Input, b.Output = m.Rates[0].USD, m.Rates[1].USD
		}
		briefs = append(briefs, b)
	}
	want := []brief{
		{"glm-5.1", "exact", "glm-5.1", "zai", nil, 1.4, 4.4},
		{"us.anthropic.claude-opus-4-7", "alias", "claude-opus-4-7", "anthropic", []string{`prefix "us.anthropic." dropped`,
			`region prefix "us.": ×1.10, as regional.anthropic.claude-opus-4-7-v1:0 is to the model's own price`}, 5.5, 27.5},
		{"global.anthropic.claude-opus-4-7", "alias", "claude-opus-4-7", "anthropic", []string{`prefix "global.anthropic." dropped`}, 5, 25},
		{"gpt-5.5-mini", "unpriced", "", "", nil, 0, 0},
	}
	if diff := cmp.Diff(want, briefs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPricesSummary(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"prices", "--format", "json"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var s pricesSummary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Layers) != 3 || s.Layers[0].Models != 32 || s.Layers[1].Models != 2 || s.Layers[0].Shadowed != 0 {
		t.Errorf("layers = %+v; want the 32 ccusage rows first, then the 2 measured ones", s.Layers)
	}
	if !strings.HasPrefix(s.Layers[2].Source, "@pydantic/genai-prices ") {
		t.Errorf("third layer = %q, want the genai-prices dataset", s.Layers[2].Source)
	}
	names, shadowed := 0, 0
	for _, l := range s.Layers {
		names += l.Models
		shadowed += l.Shadowed
	}
	providers := 0
	for _, p := range s.Providers {
		providers += p.Models
	}
	if s.Models != names-shadowed || providers != s.Models {
		t.Errorf("models %d, layers %d - %d shadowed, providers %d: the counts must agree", s.Models, names, shadowed, providers)
	}
}

func TestPricesBadInput(t *testing.T) {
	for _, args := range [][]string{{"--format", "csv"}, {"--nope"}, {"--prices", "does-not-exist.json", "glm-5"}} {
		var out, errb bytes.Buffer
		if code := run(append([]string{"prices"}, args...), strings.NewReader(""), &out, &errb); code == 0 || errb.Len() == 0 || out.Len() > 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want an error on stderr", args, code, out.String(), errb.String())
		}
	}
}

// TestPricesOneLayer: a price file of one name says so in the singular.
func TestPricesOneLayer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.json")
	os.WriteFile(file, []byte(`{"m-x": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}`), 0o600)
	code, stdout, stderr := runCLI(t, "", "prices", "--prices", file)
	if want := "1 model name priced, in 1 layer.\n  1. " + file + ": 1 name\n"; code != 0 || !strings.HasPrefix(stdout, want) {
		t.Errorf("exit %d, %q (%s); want it to open %q", code, stdout, stderr, want)
	}
}

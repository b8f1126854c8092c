package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/human"
)

func readme(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSweepContract checks the sweep's JSON against the schema block of
// docs/report-formats.md.
func TestSweepContract(t *testing.T) {
	block := regexp.MustCompile("(?s)```\n(\\{\"schema\":\"spillway.sweep/v1\".*?)```").FindStringSubmatch(docs(t, "report-formats.md"))
	if block == nil {
		t.Fatal("docs/report-formats.md has no spillway.sweep/v1 schema block")
	}
	schema := string(block[1])
	points := regexp.MustCompile(`"points":\[\{([^}]*)\}\]`).FindStringSubmatch(schema)
	if points == nil {
		t.Fatal(`the sweep schema has no "points" part`)
	}
	schema = strings.Replace(schema, points[0], `"points"`, 1)
	schema = strings.Replace(schema, `{every knob}`, "", 1)
	top := quotedKeys(strings.TrimPrefix(schema, `{"schema":"spillway.sweep/v1"`))
	pol, _ := policy.Preset("harness-rs-0.0.40")
	doc, _, err := Sweep([]string{filepath.Join("..", "testdata", "demo.jsonl")}, nil,
		Options{Prices: pricing.Default(), Policy: pol, Counter: app.Tokenizer(tokens.O200kBase)}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := doc.Write(&buf, "json", 0); err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var gotPoints []map[string]json.RawMessage
	json.Unmarshal(got["points"], &gotPoints)
	if len(gotPoints) == 0 {
		t.Fatal("the sweep has no points: the test checks nothing there")
	}
	keys := func(m map[string]json.RawMessage) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	sorted := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(append([]string{"schema"}, top...), keys(got), sorted); diff != "" {
		t.Errorf("top-level keys (-docs +JSON)\n%s", diff)
	}
	want := quotedKeys(points[1])
	for i, pt := range gotPoints {
		if diff := cmp.Diff(want, keys(pt), sorted); diff != "" {
			t.Errorf("point %d keys (-docs +JSON)\n%s", i, diff)
		}
	}
}

// TestDocsGenericExample reads the example of the generic format in
// docs/formats.md as printed: one call of 100 + 0 + 900 + 40 tokens of
// claude-sonnet-4-5 ($0.000300 + $0.000270 + $0.000600), one result, one
// compaction, and no warning.
func TestDocsGenericExample(t *testing.T) {
	block := regexp.MustCompile("(?s)One JSON object per line, in the order the messages happened:\n\n```\n(.*?)```").FindSubmatch([]byte(docs(t, "formats.md")))
	if block == nil {
		t.Fatal("docs/formats.md has no example of the generic format")
	}
	path := filepath.Join(t.TempDir(), "example.jsonl")
	if err := os.WriteFile(path, block[1], 0o600); err != nil {
		t.Fatal(err)
	}
	none, _ := policy.Preset("none")
	var out, errw bytes.Buffer
	w, _ := NewWriter("json", &out, "")
	if p, err := Generate([]string{path}, nil, Options{Prices: pricing.Default(), Policy: none}, w, &errw); err != nil || p != (Problems{}) {
		t.Fatalf("%v %+v %s", err, p, errw.String())
	}
	var doc struct{ Sessions []struct{ Totals Totals } }
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tot := doc.Sessions[0].Totals
	if tot.Warnings != 0 || tot.APICalls != 1 || tot.ToolResults != 1 || tot.Compactions != 1 ||
		tot.Recorded != (Tokens{Input: 100, CacheRead: 900, Output: 40}) || tot.CostUSD == nil || human.USD(tot.CostUSD) != "$0.001170" {
		t.Errorf("the example reads as %+v", tot)
	}
}

package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestReadmeGroups runs the grouped reports README (the text) and
// docs/report-formats.md (the JSON) show, on the fixture they name, and
// compares them line for line; and checks the keys of the JSON groups
// against the schema in docs/report-formats.md.
func TestReadmeGroups(t *testing.T) {
	readmeMD, md := string(readme(t)), docs(t, "report-formats.md")
	block := func(file, md, prompt string) string {
		t.Helper()
		m := regexp.MustCompile("(?s)```\n\\$ " + regexp.QuoteMeta(prompt) + "\n(.*?)```").FindStringSubmatch(md)
		if m == nil {
			t.Fatalf("%s no longer shows %q", file, prompt)
		}
		return m[1]
	}
	none, _ := policy.Preset("none")
	run := func(g Grouping, format string) string {
		t.Helper()
		var out, errw bytes.Buffer
		if _, err := GenerateGroups([]string{byFixture}, nil, Options{Prices: pricing.Default(), Policy: none}, g, format, &out, &errw); err != nil || errw.Len() > 0 {
			t.Fatalf("%v %s", err, errw.String())
		}
		return out.String()
	}
	text := run(Grouping{By: "day", Zone: time.UTC, ZoneName: "UTC"}, "text")
	if diff := cmp.Diff(block("README.md", readmeMD, "go run . report --by day -z UTC report/testdata/by"), text); diff != "" {
		t.Errorf("README's text example (-README +report)\n%s", diff)
	}

	var doc struct {
		Groups []json.RawMessage
		Total  json.RawMessage
	}
	if err := json.Unmarshal([]byte(run(Grouping{By: "model", Zone: time.UTC, ZoneName: "UTC"}, "json")), &doc); err != nil {
		t.Fatal(err)
	}
	compact := func(raw json.RawMessage) string {
		var b bytes.Buffer
		json.Compact(&b, raw)
		return b.String()
	}
	got := compact(doc.Groups[0]) + "\n" + compact(doc.Total) + "\n"
	if diff := cmp.Diff(block("docs/report-formats.md", md, "go run . report --by model -z UTC --format json report/testdata/by | jq -c '.groups[0], .total'"), got); diff != "" {
		t.Errorf("the JSON example (-docs +report)\n%s", diff)
	}

	schema := regexp.MustCompile(`"groups":\[\{(.*?)\}\],`).FindStringSubmatch(strings.ReplaceAll(md, "\n", " "))
	if schema == nil {
		t.Fatal(`docs/report-formats.md has no "groups" schema`)
	}
	var group map[string]json.RawMessage
	json.Unmarshal(doc.Groups[0], &group)
	var keys []string
	for k := range group {
		keys = append(keys, k)
	}
	want := quotedKeys(regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(schema[1], ""))
	if diff := cmp.Diff(want, keys, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("group keys (-docs +JSON)\n%s", diff)
	}
}

package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDistinctive pins which strings of a text the hazard rule finds
// distinctive (docs/policies.md, "The rule, exactly").
func TestDistinctive(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// A DSN whole, without the sentence's full stop; its parts are not
		// found again as words.
		{"connect to postgres://app:pw@db-1.internal:5432/main.", []string{"postgres://app:pw@db-1.internal:5432/main"}},
		// Paths need two parts and 12 bytes; a leading ./ goes.
		{"see ./src/guard/replay.go and /linearGradient and a/b", []string{"src/guard/replay.go"}},
		// Identifiers need an underscore, an inner capital or a digit.
		{"implementation waitUntilReady to_string prepare_documents turn5search7", []string{"waitUntilReady", "prepare_documents", "turn5search7"}},
		// Numbers of 6 digits, not round ones; hex of 12 with a digit.
		{"ids 12345 123456 1000000 777777 deadbeefcafe 0123456789ab", []string{"123456", "0123456789ab"}},
		// Names of the platform's standard library are no evidence,
		// written in code or quoted.
		{`requestAnimationFrame(tick); new Date().toLocaleTimeString(); on("DOMContentLoaded") setActiveFileName`, []string{"setActiveFileName"}},
		// Quoted strings of 12 bytes or more; an apostrophe is not a quote.
		{`say "connection refused" and 'short' or don't it's fine`, []string{"connection refused"}},
	}
	for _, tt := range tests {
		var ts tokenScanner
		var got []string
		ts.findWords(tt.text, func(key string, from, to int) {
			if tt.text[from:to] != key {
				t.Errorf("%q: key %q at %d:%d", tt.text, key, from, to)
			}
			got = append(got, key)
		})
		quoted(tt.text, wellKnown(), func(key string, _, _ int) { got = append(got, key) })
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.text, diff)
		}
	}
}

// TestRuns: a run is 40 normalised bytes from a word's start, found the
// same in a file viewer's numbered lines and in an edit's plain text.
func TestRuns(t *testing.T) {
	viewed := "    12→\tif err := load(cfg); err != nil {\n    13→\t\treturn fmt.Errorf(\"load: %w\", err)\n"
	edited := "if err := load(cfg); err != nil {\n\treturn fmt.Errorf(\"load: %w\", err)\n"
	collect := func(text string) []string {
		var ts tokenScanner
		var out []string
		ts.runs(text, func(key string, from, to int) { out = append(out, key) })
		return out
	}
	a, b := collect(viewed), collect(edited)
	if len(a) == 0 {
		t.Fatal("no run found")
	}
	if diff := cmp.Diff(b, a); diff != "" {
		t.Errorf("runs differ (-edit +view):\n%s", diff)
	}
	if a[0] != `if err := load(cfg); err != nil { return` {
		t.Errorf("first run %q", a[0])
	}
	// An idiom of keywords and names every program uses is no run; a
	// window that holds a word of the project's is.
	if got := collect("const msg = error instanceof Error ? error.message : String(error);"); got != nil {
		t.Errorf("the idiom gives runs %q", got)
	}
	if got := collect("const msg = error instanceof Error ? error.message : describeOrderFailure(error);"); len(got) == 0 || !strings.Contains(got[len(got)-1], "describeOrderFailure") {
		t.Errorf("a project's call gives runs %q", got)
	}
}

// TestWellKnownNames: every standard name listed is one the rule would
// otherwise take for distinctive, so the list holds none to no purpose.
func TestWellKnownNames(t *testing.T) {
	for _, name := range strings.Fields(standardNames) {
		if !distinctivePart(name) {
			t.Errorf("%s is not distinctive anyway", name)
		}
	}
}

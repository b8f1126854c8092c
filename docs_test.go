package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocLinks checks that every relative link in README.md,
// CONTRIBUTING.md and docs/*.md names a file that is there and, where it
// has an anchor, a heading of that file, as GitHub makes anchors.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md", "CONTRIBUTING.md"}, files...)
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := map[string]bool{}
		for _, h := range headings(string(data)) {
			id := anchor(h)
			for n := 1; a[id]; n++ { // GitHub numbers a repeated heading's anchor
				id = anchor(h) + "-" + strconv.Itoa(n)
			}
			a[id] = true
		}
		anchors[path] = a
		return a
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(prose(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			path = filepath.Join(filepath.Dir(file), path)
			if m[1][0] == '#' {
				path = file
			}
			checked++
			st, err := os.Stat(path)
			if err != nil {
				t.Errorf("%s: link %s: %v", file, target, err)
				continue
			}
			if frag != "" && (st.IsDir() || !anchorsOf(path)[frag]) {
				t.Errorf("%s: link %s: %s has no heading with that anchor", file, target, path)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d links checked: the pattern finds too few", checked)
	}
}

// prose is a Markdown text without its fenced code blocks and code spans,
// whose brackets are not links and whose lines are not headings.
func prose(md string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(regexp.MustCompile("`[^`]*`").ReplaceAllString(line, "``"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// headings are the texts of md's ATX headings, outside code blocks.
func headings(md string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if text, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
			out = append(out, text)
		}
	}
	return out
}

// anchor is the anchor GitHub gives a heading: its text as shown (links by
// their text, no code marks), lower-cased, without punctuation but hyphens
// and underscores, spaces as hyphens.
func anchor(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestAnchor(t *testing.T) {
	for heading, want := range map[string]string{
		"Many sessions: `--by`, `--since`, `--until`, `-z`":   "many-sessions---by---since---until--z",
		"The JSON report: `spillway.report/v1`":               "the-json-report-spillwayreportv1",
		"What would a ceiling save: `spillway sweep`":         "what-would-a-ceiling-save-spillway-sweep",
		"Arenas: who owns what":                               "arenas-who-owns-what",
		"`calls.parquet` (and each line of `--format jsonl`)": "callsparquet-and-each-line-of---format-jsonl",
	} {
		if got := anchor(heading); got != want {
			t.Errorf("anchor(%q) = %q, want %q", heading, got, want)
		}
	}
}

// docCommand finds the block of docs/name that shows a spillway command
// matching command and runs it, LOGS at its end (when logs is not "")
// standing for logs: the command, the block's text, and what it printed.
func docCommand(t *testing.T, name, command, logs string) (cmd, block, out string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("docs", name))
	if err != nil {
		t.Fatal(err)
	}
	line := "(" + command + ")"
	if logs != "" {
		line += " LOGS"
	}
	m := regexp.MustCompile("(?s)```\n\\$ spillway " + line + "\n(.*?)```").FindStringSubmatch(string(doc))
	if m == nil {
		t.Fatalf("docs/%s no longer shows spillway %s", name, command)
	}
	args := strings.Fields(m[1])
	if logs != "" {
		args = append(args, logs)
	}
	var stdout, stderr strings.Builder
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("%s: exit %d, stderr %q", m[1], code, stderr.String())
	}
	return m[1], m[2], stdout.String()
}

// TestDocsPrices runs the spillway prices docs/usage.md shows and checks
// that each line it quotes is a line of the output.
func TestDocsPrices(t *testing.T) {
	cmd, block, printed := docCommand(t, "usage.md", "prices [^\n]*", "")
	lines := map[string]bool{}
	for _, l := range strings.Split(printed, "\n") {
		lines[l] = true
	}
	for _, want := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if strings.TrimSpace(want) != "..." && !lines[want] {
			t.Errorf("docs/usage.md shows a line spillway %s does not print:\n%q\noutput:\n%s", cmd, want, printed)
		}
	}
}

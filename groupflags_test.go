package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/report"
)

// TestReportGroupFlags runs report's flags for many sessions as a user
// types them; the figures are pinned in report's tests.
func TestReportGroupFlags(t *testing.T) {
	by := filepath.Join("report", "testdata", "by")
	tests := []struct {
		name      string
		args      []string
		code      int
		stdoutHas []string
		stderrHas string
	}{
		{name: "by day", args: []string{"report", "--by", "day", "-z", "UTC", by},
			stdoutHas: []string{"by day · 3 sessions, 6 API calls · times in UTC\n", "  2026-03-01         1      1  1,000     100            0           0  $0.004500\n"}},
		{name: "a folder without --by", args: []string{"report", "--timezone", "America/New_York", by},
			stdoutHas: []string{"by session · 3 sessions, 6 API calls · times in America/New_York · paths under report/testdata/by\n"}},
		{name: "the calls too", args: []string{"report", "--by", "month", "--calls", "-z", "UTC", by},
			stdoutHas: []string{"  call           time (UTC)", "  2026-03         3      6"}},
		{name: "a cut", args: []string{"report", "--since", "2026-03-02", "--until", "2026-03-02", "-z", "UTC", by},
			stdoutHas: []string{"by session · 2 sessions, 4 API calls · times in UTC · calls from 2026-03-02 before 2026-03-03 · paths under report/testdata/by\n"}},
		{name: "json", args: []string{"report", "--by", "model", "--format", "json", by},
			stdoutHas: []string{`"by":"model"`, `"groups":[{"key":"claude-haiku-4-5","sessions":1,"api_calls":1,`}},
		{name: "csv", args: []string{"report", "--by", "project", "--format", "csv", by},
			stdoutHas: []string{"by,key,sessions,api_calls,input,output,cache_creation,cache_read,cost_usd,cost_usd_after\n"}},
		{name: "unknown grouping", args: []string{"report", "--by", "fortnight", by}, code: 2, stderrHas: "--by fortnight: want one of session, day, week, month, project, model"},
		{name: "bad date", args: []string{"report", "--since", "yesterday", by}, code: 2, stderrHas: `--since: "yesterday" is neither a date`},
		{name: "bad zone", args: []string{"report", "-z", "Mars/Olympus", by}, code: 2, stderrHas: `--timezone: unknown time zone "Mars/Olympus"`},
		{name: "empty range", args: []string{"report", "--since", "2026-03-03", "--until", "2026-03-02", by}, code: 2, stderrHas: "is after --until"},
		{name: "csv has no call rows with --by", args: []string{"report", "--by", "day", "--calls", "--format", "csv", by}, code: 2, stderrHas: "--calls with --by has no CSV shape"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, stderr)
			}
			for _, want := range tt.stdoutHas {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr %q lacks %q", stderr, tt.stderrHas)
			}
		})
	}
	code, stdout, _ := runCLI(t, "", "__complete", "report", "--by", "")
	if code != 0 || !strings.Contains(stdout, "week\n") || !strings.Contains(stdout, "model\n") {
		t.Errorf("exit %d, --by completions:\n%s", code, stdout)
	}
}

// TestReportDiscovers: without a path, report reads every session found,
// grouped or not.
func TestReportDiscovers(t *testing.T) {
	by, err := filepath.Abs(filepath.Join("report", "testdata", "by"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(by, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(by, "codex"))
	code, stdout, stderr := runCLI(t, "", "report", "-z", "UTC")
	if code != 0 || !strings.HasPrefix(stdout, "by session · 3 sessions, 6 API calls · times in UTC · paths under "+by+"\n") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = runCLI(t, "", "report", "--format", "json")
	if n := strings.Count(stdout, `"schema":"spillway.report/v1"`); code != 0 || n != 1 || strings.Count(stdout, `"session_id":`) != 4 {
		t.Errorf("exit %d, stderr %s: want one document of 3 sessions and a sub-agent:\n%.400s", code, stderr, stdout)
	}
}

// TestReportWidth: the tables fit $COLUMNS, and a width the terminal
// would not give is refused for the default.
func TestReportWidth(t *testing.T) {
	by := filepath.Join("report", "testdata", "by")
	for _, columns := range []string{"80", "120", "200", "junk"} {
		t.Setenv("COLUMNS", columns)
		code, stdout, stderr := runCLI(t, "", "report", "-z", "UTC", by)
		if code != 0 {
			t.Fatalf("COLUMNS=%s: exit %d: %s", columns, code, stderr)
		}
		width, err := strconv.Atoi(columns)
		if err != nil {
			width = report.DefaultWidth
		}
		widest := 0
		for _, line := range strings.Split(stdout, "\n") {
			widest = max(widest, termtext.Width(line))
		}
		if widest > width || widest < width-60 {
			t.Errorf("COLUMNS=%s: widest line %d cells:\n%s", columns, widest, stdout)
		}
	}
}

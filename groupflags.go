package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/report"
)

// groupFlags are report's flags for many sessions: groups, the cut and
// the zone that dates them.
type groupFlags struct {
	by, since, until, zone string
	calls                  bool
}

func (g *groupFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&g.by, "by", "", "one row per "+strings.Join(report.GroupKeys, ", ")+", then the total")
	fs.StringVar(&g.since, "since", "", "count calls from this date (YYYY-MM-DD, the whole day) or RFC 3339 time on")
	fs.StringVar(&g.until, "until", "", "count calls up to this date (YYYY-MM-DD, the whole day) or RFC 3339 time")
	fs.StringVarP(&g.zone, "timezone", "z", "", "time zone that dates and prints the calls, an IANA name such as UTC or Europe/Berlin (default: this machine's)")
	fs.BoolVar(&g.calls, "calls", false, "with several sessions or --by, also each session's calls")
	complete(c, "by", report.GroupKeys)
	complete(c, "timezone", []string{"UTC", "Local"})
}

// grouping turns the flags into a report.Grouping.
func (g *groupFlags) grouping() (report.Grouping, error) {
	var out report.Grouping
	if g.by != "" {
		found := false
		for _, k := range report.GroupKeys {
			found = found || k == g.by
		}
		if !found {
			return out, fmt.Errorf("--by %s: want one of %s", g.by, strings.Join(report.GroupKeys, ", "))
		}
	}
	zone, name, err := report.ParseZone(g.zone)
	if err != nil {
		return out, fmt.Errorf("--timezone: %w", err)
	}
	out = report.Grouping{By: g.by, Zone: zone, ZoneName: name, Calls: g.calls}
	if g.since != "" {
		if out.Since, err = report.ParseBound(g.since, zone, false); err != nil {
			return out, fmt.Errorf("--since: %w", err)
		}
	}
	if g.until != "" {
		if out.Until, err = report.ParseBound(g.until, zone, true); err != nil {
			return out, fmt.Errorf("--until: %w", err)
		}
	}
	if out.Cut() && !out.Since.IsZero() && !out.Until.IsZero() && !out.Since.Before(out.Until) {
		return out, fmt.Errorf("--since %s is after --until %s: no call could be counted", g.since, g.until)
	}
	return out, nil
}

// printGroups writes a report of paths, grouped as g says, every session
// found when paths is empty; it returns the exit status.
func printGroups(fs *flag.FlagSet, common *commonFlags, g report.Grouping, paths []string, stdinName string, stdin io.Reader, format string, stdout, stderr io.Writer) int {
	opt, err := common.options(fs, stderr)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	opt.StdinName = stdinName
	g.Width = textWidth(stdout)
	stdout, stderr, done := withProgress(stdout, stderr, &opt)
	defer done()
	if err := g.CheckFormat(format); err != nil {
		printError(stderr, err)
		return exitUsage
	}
	problems, err := report.GenerateGroups(paths, stdin, opt, g, format, stdout, stderr)
	var none *app.NoSessionsError
	switch {
	case errors.As(err, &none):
		return noSessions(stderr, err)
	case err != nil:
		printError(stderr, err)
		return 1
	}
	return problems.Status()
}

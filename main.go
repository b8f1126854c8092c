// Command spillway shows what every tool result of a coding agent's session
// cost, and what it would have cost under a tool-result policy.
package main

import (
	"bytes"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/report"
	"github.com/spillway-dev/spillway/transcript"
)

// exitUsage is the status for bad flags and inputs that are not transcripts.
const exitUsage = 2

//go:generate go run ./internal/demo/gendemo -out testdata/demo.jsonl

// demoSession is opened when no path is given and no session is found.
//
//go:embed testdata/demo.jsonl
var demoSession []byte

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "report":
			return runReport(args[1:], stdin, stdout, stderr)
		case "help", "-h", "-help", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	return runInspect(args, stdin, stdout, stderr)
}

const usage = `spillway: per-call token costs of coding-agent sessions, before and after a tool-result policy.

Usage:
  spillway [flags] [PATH | -]            open a session (newest found when no PATH)
  spillway report [flags] [PATH ...]     per-call costs and totals as text, JSON or CSV

PATH is a transcript file, a directory (searched for *.jsonl), or - for standard input.
Without PATH, sessions are looked for in $CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects
and ~/.config/claude/projects) and $CODEX_HOME/sessions (else ~/.codex/sessions).

Run "spillway report -h" for its flags.
`

// commonFlags are the flags every subcommand takes.
type commonFlags struct {
	inputFormat string
	prices      string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.inputFormat, "input-format", "auto", "transcript format: auto, claude-code, codex, antigravity or generic")
	fs.StringVar(&c.prices, "prices", "", "LiteLLM-shaped price file to use instead of the embedded table")
}

func (c *commonFlags) resolve() (transcript.Options, *pricing.Table, error) {
	f, err := transcript.ParseFormat(c.inputFormat)
	if err != nil {
		return transcript.Options{}, nil, err
	}
	prices := pricing.Default()
	if c.prices != "" {
		if prices, err = pricing.Load(c.prices); err != nil {
			return transcript.Options{}, nil, err
		}
	}
	return transcript.Options{Format: f}, prices, nil
}

// parseInterspersed parses flags that may come before, between or after
// positional arguments, as users type them.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("spillway report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	common.register(fs)
	format := fs.String("format", "text", "output format: "+strings.Join(report.Formats, ", "))
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: spillway report [flags] [PATH ...]\n\nPer-call token costs and totals of each session.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if len(paths) == 0 {
		files, err := transcript.Discover()
		if err != nil {
			fmt.Fprintf(stderr, "spillway: %v\n", err)
			return 1
		}
		if len(files) == 0 {
			fmt.Fprintf(stderr, "spillway: no sessions found; give a transcript path (see spillway -h)\n")
			return exitUsage
		}
		paths = []string{files[0].Path}
	}
	return printReport(paths, "stdin", stdin, common, *format, stdout, stderr)
}

// printReport writes the report of paths ("-" reads stdin, labelled
// stdinName) and returns the exit status.
func printReport(paths []string, stdinName string, stdin io.Reader, common commonFlags, format string, stdout, stderr io.Writer) int {
	readOpt, prices, err := common.resolve()
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	w, err := report.NewWriter(format, stdout, prices.Source)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	opt := report.Options{Prices: prices, Read: readOpt, StdinName: stdinName}
	problems, err := report.Generate(paths, stdin, opt, w, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return 1
	}
	switch {
	case problems.NotTranscripts > 0:
		return exitUsage
	case problems.Failed > 0:
		return 1
	}
	return 0
}

// runInspect opens a session: the path given, else the newest one found,
// else the built-in demo. Until the inspector lands it prints the report.
func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("spillway", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var common commonFlags
	common.register(fs)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if len(paths) > 1 {
		fmt.Fprintf(stderr, "spillway: open one session at a time (got %d paths); spillway report takes several\n", len(paths))
		return exitUsage
	}
	stdinName := "stdin"
	if len(paths) == 0 {
		files, err := transcript.Discover()
		if err != nil {
			fmt.Fprintf(stderr, "spillway: %v\n", err)
		}
		if len(files) == 0 {
			fmt.Fprintln(stderr, "spillway: no sessions found under ~/.claude/projects or ~/.codex/sessions; showing the built-in demo")
			paths, stdin, stdinName = []string{"-"}, bytes.NewReader(demoSession), "demo"
		} else {
			paths = []string{files[0].Path}
		}
	}
	return printReport(paths, stdinName, stdin, common, "text", stdout, stderr)
}

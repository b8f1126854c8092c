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
	"runtime/debug"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/spillway-dev/spillway/guard"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/report"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
	"github.com/spillway-dev/spillway/ui"
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
			batchGC()
			return runReport(args[1:], stdin, stdout, stderr)
		case "sweep":
			batchGC()
			return runSweep(args[1:], stdin, stdout, stderr)
		case "presets":
			return runPresets(args[1:], stdout, stderr)
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
  spillway sweep [flags] [PATH ...]      savings at ceilings from 2 KiB to 256 KiB
  spillway presets [--format json]       the policy presets and every knob

PATH is a transcript file, a directory (searched for *.jsonl), or - for standard input.
Without PATH, sessions are looked for in $CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects
and ~/.config/claude/projects) and $CODEX_HOME/sessions (else ~/.codex/sessions).

Run "spillway report -h" for the flags.
`

// batchGC trades memory for speed in the batch commands: they hold a few
// sessions at a time, so collecting less often costs tens of megabytes and
// saves a fifth of the time. GOGC, when set, still decides.
func batchGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// commonFlags are the flags every command that reads sessions takes.
type commonFlags struct {
	inputFormat string
	prices      string
	policy      policyFlags
}

func (c *commonFlags) register(fs *flag.FlagSet, preset string) {
	fs.StringVar(&c.inputFormat, "input-format", "auto", "transcript format: auto, claude-code, codex, antigravity or generic")
	fs.StringVar(&c.prices, "prices", "", "LiteLLM-shaped price file to use instead of the embedded table")
	c.policy.register(fs, preset)
}

// options turns the flags into report options; a price file's unreadable
// rows are reported to stderr.
func (c *commonFlags) options(fs *flag.FlagSet, stderr io.Writer) (app.Options, error) {
	f, err := transcript.ParseFormat(c.inputFormat)
	if err != nil {
		return app.Options{}, err
	}
	prices := pricing.Default()
	if c.prices != "" {
		if prices, err = pricing.Load(c.prices); err != nil {
			return app.Options{}, err
		}
		if n := len(prices.Unreadable); n > 0 {
			more := ""
			if n > 3 {
				more = fmt.Sprintf("; and %d more", n-3)
			}
			fmt.Fprintf(stderr, "spillway: price table %s: left out, unpriced, rows whose fields do not decode: %s%s\n",
				report.Clean(c.prices), report.Clean(strings.Join(prices.Unreadable[:min(n, 3)], "; ")), more)
		}
	}
	policy, err := c.policy.resolve(fs)
	if err != nil {
		return app.Options{}, err
	}
	opt := app.Options{Prices: prices, Read: transcript.Options{Format: f}, Policy: policy}
	if !policy.Inert() {
		if opt.Counter, err = c.tokenizer(); err != nil {
			return app.Options{}, err
		}
		if opt.SpillRoot, err = c.policy.spillRoot(); err != nil {
			return app.Options{}, err
		}
	}
	return opt, nil
}

// tokenizer is the token counter the flags ask for, its ranks loaded.
func (c *commonFlags) tokenizer() (app.Counter, error) {
	counter, err := c.policy.counter()
	if err != nil {
		return nil, err
	}
	return app.Tokenizer(counter.Encoding()), nil
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

// command parses a subcommand's flags; done is set when it should exit
// with code (help, or bad flags).
func command(name, summary, preset string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (fs *flag.FlagSet, common *commonFlags, paths []string, code int, done bool) {
	fs = flag.NewFlagSet("spillway "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	common = &commonFlags{}
	common.register(fs, preset)
	if extra != nil {
		extra(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: spillway %s [flags] [PATH ...]\n\n%s\n\nFlags:\n", name, summary)
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return fs, common, nil, 0, true
		}
		return fs, common, nil, exitUsage, true
	}
	return fs, common, paths, 0, false
}

// noSessions says there is nothing to read, and where it was looked for,
// and returns the exit status.
func noSessions(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "spillway: %s (see spillway -h)\n", report.Clean(err.Error()))
	return 1
}

// newestSession finds the session to open when no path is given; the
// error says where it looked when there is none.
func newestSession() (string, error) {
	in, err := app.Newest(app.SystemEnv())
	return in.Path, err
}

// orNewest is paths, or the newest discovered session when there are none.
func orNewest(paths []string) ([]string, error) {
	if len(paths) > 0 {
		return paths, nil
	}
	path, err := newestSession()
	if err != nil {
		return nil, err
	}
	return []string{path}, nil
}

func runReport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var format string
	fs, common, paths, code, done := command("report", "Per-call token costs and totals of each session as recorded; with a policy (--preset or any\npolicy flag), also what each call would have cost under it.", "none", args, stderr,
		func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "text", "output format: "+strings.Join(report.Formats, ", "))
		})
	if done {
		return code
	}
	paths, err := orNewest(paths)
	if err != nil {
		return noSessions(stderr, err)
	}
	return printReport(fs, common, paths, "stdin", stdin, format, stdout, stderr)
}

// printReport writes the report of paths ("-" reads stdin, labelled
// stdinName) and returns the exit status.
func printReport(fs *flag.FlagSet, common *commonFlags, paths []string, stdinName string, stdin io.Reader, format string, stdout, stderr io.Writer) int {
	opt, err := common.options(fs, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	opt.StdinName = stdinName
	w, err := report.NewWriter(format, stdout, opt.Prices.Source)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	problems, err := report.Generate(paths, stdin, opt, w, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return 1
	}
	return problems.Status()
}

func runSweep(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var format string
	fs, common, paths, code, done := command("sweep", "Results touched, tokens and dollars saved at ceilings from 2 KiB to 256 KiB (and the policy's own).", guard.DefaultPreset, args, stderr,
		func(fs *flag.FlagSet) {
			fs.StringVar(&format, "format", "text", "output format: text, json or csv")
		})
	if done {
		return code
	}
	paths, err := orNewest(paths)
	if err != nil {
		return noSessions(stderr, err)
	}
	opt, err := common.options(fs, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	if opt.Counter == nil {
		if opt.Counter, err = common.tokenizer(); err != nil {
			fmt.Fprintf(stderr, "spillway: %v\n", err)
			return 1
		}
	}
	sw, problems, err := report.Sweep(paths, stdin, opt, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return 1
	}
	if err := sw.Write(stdout, format); err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	return problems.Status()
}

func runPresets(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("spillway presets", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "output format: text or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "spillway: presets takes no arguments, got %q\n", fs.Args())
		return exitUsage
	}
	if err := report.WritePresets(stdout, *format, guard.Presets()); err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	return 0
}

// runInspect opens a session in the inspector: the path given, else the
// newest one found, else the built-in demo. Without a terminal to draw on
// it prints the report instead.
func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var theme string
	var follow, noFollow bool
	fs, common, paths, code, done := command("", "Open one session in the inspector.", guard.DefaultPreset, args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&theme, "theme", "auto", "colours: "+strings.Join(themes.Names, ", ")+" (NO_COLOR forces mono)")
		fs.BoolVar(&follow, "follow", false, "follow the file as the agent writes it (default when it changed in the last minute)")
		fs.BoolVar(&follow, "f", false, "short for --follow")
		fs.BoolVar(&noFollow, "no-follow", false, "never follow")
	})
	if done {
		return code
	}
	if len(paths) > 1 {
		fmt.Fprintf(stderr, "spillway: open one session at a time (got %d paths); spillway report takes several\n", len(paths))
		return exitUsage
	}
	if _, err := themes.Pick(theme, true, false); err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	src := ui.Source{}
	switch {
	case len(paths) == 1 && paths[0] == "-":
		src = ui.Source{Name: "stdin", Stdin: stdin}
	case len(paths) == 1:
		src = ui.Source{Name: paths[0], Path: paths[0]}
	default:
		if path, err := newestSession(); err == nil {
			src = ui.Source{Name: path, Path: path}
		} else {
			fmt.Fprintf(stderr, "spillway: %s; showing the built-in demo\n", report.Clean(err.Error()))
			src = ui.Source{Name: "demo", Data: demoSession}
		}
	}
	if !isTerminal(stdout) {
		name, in := src.Path, stdin
		if src.Data != nil {
			name, in = "-", bytes.NewReader(src.Data)
		} else if src.Stdin != nil {
			name = "-"
		}
		return printReport(fs, common, []string{name}, src.Name, in, "text", stdout, stderr)
	}
	opt, err := common.options(fs, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return exitUsage
	}
	dir := false
	if src.Path != "" {
		info, err := os.Stat(src.Path)
		if err != nil {
			fmt.Fprintf(stderr, "spillway: %v\n", err)
			return 1
		}
		dir = info.IsDir()
	}
	following := follow || (!noFollow && src.Path != "" && (dir || recentlyChanged(src.Path)))
	if dir && !following {
		inputs, err := app.Resolve([]string{src.Path}, app.SystemEnv())
		if err == nil && inputs[0].Err != nil {
			err = inputs[0].Err
		}
		if err != nil {
			fmt.Fprintf(stderr, "spillway: %s\n", report.Clean(err.Error()))
			return 1
		}
		src = ui.Source{Name: inputs[0].Path, Path: inputs[0].Path}
	}
	spillRoot := opt.SpillRoot
	if spillRoot == "" {
		spillRoot, _ = common.policy.spillRoot()
	}
	err = ui.Run(ui.Options{
		Source: src, Read: opt.Read, Policy: opt.Policy, Prices: opt.Prices,
		Counter: func() (guard.TokenCounter, error) {
			c, err := common.policy.counter()
			if err != nil {
				return nil, err
			}
			return tokens.NewCache(c), nil
		},
		SpillRoot: spillRoot, Follow: following, Theme: theme, NoColor: os.Getenv("NO_COLOR") != "",
	})
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		var nt *transcript.NotTranscriptError
		if errors.As(err, &nt) {
			return exitUsage
		}
		return 1
	}
	return 0
}

// isTerminal tells whether w is a terminal the inspector can draw on.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// recentlyChanged tells whether a file was written in the last minute: a
// session still running, followed by default.
func recentlyChanged(path string) bool {
	info, err := os.Stat(path)
	return err == nil && time.Since(info.ModTime()) < time.Minute
}

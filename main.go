// Command spillway shows what every tool result of a coding agent's session
// cost, and what it would have cost under a tool-result policy.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"charm.land/fang/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	// pflag is the drop-in for the standard flag package that cobra parses
	// with; under its standard name the code reads as it always has.
	flag "github.com/spf13/pflag"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/memory"
	"github.com/spillway-dev/spillway/internal/sessions"
	"github.com/spillway-dev/spillway/internal/termtext"
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
	// Claude Code runs the hook for every tool call: it starts without the
	// command line's machinery, and always exits 0.
	if len(os.Args) > 2 && os.Args[1] == "hook" && os.Args[2] == "claude-code" &&
		runHookFast(os.Args[3:], os.Stdin, os.Stdout, os.Stderr) {
		os.Exit(0)
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run parses args, runs the command they name and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := 0
	root := newCommand(stdin, stdout, stderr, &code)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(helpWriter(stdout))
	root.SetErr(stderr)
	err := fang.Execute(context.Background(), root,
		fang.WithVersion(version()),
		fang.WithoutManpage(),
		fang.WithErrorHandler(printCommandError))
	switch {
	case errors.Is(err, errLineShown):
		return 0
	case err != nil:
		// The commands print their own errors and set code; what reaches
		// here is what cobra itself rejected: a bad command line.
		return exitUsage
	}
	return code
}

// printError is how every error reaches stderr: one line, its text (which
// can hold file names and transcript text) escaped.
func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "spillway: %s\n", termtext.Escape(err.Error()))
}

// escapedError is err with its text made safe to draw.
type escapedError struct{ err error }

func (e escapedError) Error() string { return termtext.Escape(e.err.Error()) }
func (e escapedError) Unwrap() error { return e.err }

// printCommandError prints what cobra rejected (bad flags, for the most
// part) in fang's style on a terminal, and as printError's one line
// elsewhere.
func printCommandError(w io.Writer, styles fang.Styles, err error) {
	if errors.Is(err, errLineShown) {
		return
	}
	out := w
	if cw, ok := w.(*colorprofile.Writer); ok {
		out = cw.Forward
	}
	if !isTerminal(out) {
		printError(out, err)
		return
	}
	fang.DefaultErrorHandler(w, styles, escapedError{err})
	if strings.HasPrefix(err.Error(), undefinedFlag) {
		// fang points to --help after the flag errors it knows by pflag's
		// words; this one has the standard library's.
		fmt.Fprintln(w, lipgloss.JoinHorizontal(lipgloss.Left,
			styles.ErrorText.UnsetWidth().Render("Try"),
			styles.Program.Flag.Render(" --help "),
			styles.ErrorText.UnsetWidth().UnsetMargins().UnsetTransform().Render("for usage.")))
		fmt.Fprintln(w)
	}
}

const undefinedFlag = "flag provided but not defined: "

// flagError words an unknown flag as the standard flag package does, as
// spillway's users and scripts know it, where pflag has words of its own.
func flagError(_ *cobra.Command, err error) error {
	msg := err.Error()
	for _, prefix := range []string{"unknown flag: ", "unknown shorthand flag: "} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			return errors.New(undefinedFlag + rest)
		}
	}
	return err
}

// version is what --version prints: the module version and the revision
// the binary was built from, as the Go toolchain recorded them.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	setting := map[string]string{}
	for _, s := range info.Settings {
		setting[s.Key] = s.Value
	}
	rev := setting["vcs.revision"]
	switch {
	case rev == "" && v == "(devel)":
		return v + ", built without version control information"
	case rev == "":
		return v
	}
	v += ", revision " + rev
	if t := setting["vcs.time"]; t != "" {
		v += " of " + t
	}
	if setting["vcs.modified"] == "true" {
		v += ", with uncommitted changes"
	}
	return v
}

// paths says what the commands read; help wraps it to the terminal.
const paths = "PATH is a transcript file, a directory (searched recursively for *.jsonl), or - for standard input. " +
	"Without PATH, sessions are looked for in $CLAUDE_CONFIG_DIR/projects (else ~/.claude/projects and " +
	"~/.config/claude/projects) and $CODEX_HOME/sessions (else ~/.codex/sessions), newest first. " +
	"Flags may come before or after paths."

// newCommand builds the command line: the inspector at the root, and
// report, sweep, presets, prices and policy under it.
// A command sets *code to its exit status.
func newCommand(stdin io.Reader, stdout, stderr io.Writer, code *int) *cobra.Command {
	root := &cobra.Command{
		Use:   "spillway [PATH ... | -]",
		Short: "Per-call token costs of coding-agent sessions, before and after a tool-result policy.",
		Long: "Per-call token costs of coding-agent sessions, before and after a tool-result policy.\n\n" +
			"Without a command, spillway opens one session in the inspector: PATH, else the newest session found, " +
			"else a built-in demo. When standard output is not a terminal it prints the report instead.\n\n" + paths,
		Example: `# the newest session, in the inspector
spillway
# every session in a folder, recorded costs as CSV
spillway report --format csv ~/.claude/projects
# what Claude Code's own policy saves, at every ceiling
spillway sweep --preset claude-code session.jsonl`,
		Args: cobra.ArbitraryArgs,
	}
	root.SetFlagErrorFunc(flagError)
	common, theme, follow, noFollow := &commonFlags{}, "auto", false, false
	common.register(root.Flags(), policy.DefaultPreset)
	completeCommon(root)
	root.Flags().StringVar(&theme, "theme", theme, "colours: "+strings.Join(themes.Names, ", ")+" (NO_COLOR forces mono)")
	root.Flags().BoolVarP(&follow, "follow", "f", false, "follow the file as the agent writes it, or the session list's sessions (default when one changed in the last minute, or PATH is a folder of one session)")
	root.Flags().BoolVar(&noFollow, "no-follow", false, "never follow")
	root.Flags().Bool("no-cache", false, "list sessions without reading or writing the session index cache")
	complete(root, "theme", themes.Names)
	root.Run = func(cmd *cobra.Command, args []string) {
		*code = runInspect(cmd.Flags(), common, args, theme, follow, noFollow, stdin, stdout, stderr)
	}

	reportCmd := &cobra.Command{
		Use:   "report [PATH ...]",
		Short: "Costs and totals of every call, as text, JSON or CSV",
		Long: "Per-call token costs and totals of each session as recorded; with a policy (--preset or any " +
			"policy flag), also what each call would have cost under it. Several sessions are a table of sessions " +
			"and a total; --by sums them per day, week, month, session, project or model.\n\n" + paths,
		Example: `spillway report session.jsonl
spillway report --max-bytes 8KiB --format json ~/.codex/sessions
# this month per day, in UTC
spillway report --by day --since 2026-05-01 -z UTC`,
		Args: cobra.ArbitraryArgs,
	}
	reportFlags, reportFormat, reportOut, reportTexts := &commonFlags{}, "text", "", false
	reportFlags.register(reportCmd.Flags(), "none")
	completeCommon(reportCmd)
	reportCmd.Flags().StringVar(&reportFormat, "format", reportFormat, "output format: "+strings.Join(report.Formats, ", "))
	complete(reportCmd, "format", report.Formats)
	reportCmd.Flags().StringVar(&reportOut, "out", "", "folder the parquet tables (or calls.jsonl) are written into")
	_ = reportCmd.MarkFlagDirname("out")
	reportCmd.Flags().BoolVar(&reportTexts, "texts", false, "with --format json or jsonl, each result's text as recorded and text_after as the model would receive it (jsonl: a line per result)")
	reportCmd.Flags().Bool("no-cache", false, "neither read nor write the session index cache, where a report of many sessions keeps each one's figures for the next run")
	groupFlags := &groupFlags{}
	groupFlags.register(reportCmd)
	reportCmd.Run = func(cmd *cobra.Command, args []string) {
		batchGC()
		reportFlags.texts = reportTexts
		*code = runReport(cmd.Flags(), reportFlags, groupFlags, args, reportFormat, reportOut, stdin, stdout, stderr)
	}

	sweepCmd := &cobra.Command{
		Use:   "sweep [PATH ...]",
		Short: "Savings at ceilings from 2 KiB to 256 KiB",
		Long: "Results touched, tokens and dollars saved, and the hazards beside them, at ceilings from 2 KiB to 256 KiB (and the policy's own).\n" +
			"With --dedupe, what each harness's rule of repeat suppression adds at the policy's own ceiling, from the 2nd or the 3rd identical call: " +
			"how often it fired, what it saved, which repeats crossed a compaction or followed the agent's own write, and why a rule never fired.\n\n" + paths,
		Example: `spillway sweep --preset harness-rs-0.0.40 session.jsonl`,
		Args:    cobra.ArbitraryArgs,
	}
	sweepFlags, sweepFormat := &commonFlags{}, "text"
	sweepFlags.register(sweepCmd.Flags(), policy.DefaultPreset)
	sweepCmd.Flags().Bool("no-cache", false, "neither read nor write the session index cache, where a sweep keeps each session's figures for the next run")
	completeCommon(sweepCmd)
	sweepCmd.Flags().StringVar(&sweepFormat, "format", sweepFormat, "output format: text, json or csv")
	complete(sweepCmd, "format", []string{"text", "json", "csv"})
	sweepCmd.Run = func(cmd *cobra.Command, args []string) {
		batchGC()
		*code = runSweep(cmd.Flags(), sweepFlags, args, sweepFormat, stdin, stdout, stderr)
	}

	presetsCmd := &cobra.Command{
		Use:   "presets",
		Short: "The policy presets and every knob",
		Args:  cobra.ArbitraryArgs,
	}
	presetsFormat := "text"
	presetsCmd.Flags().StringVar(&presetsFormat, "format", presetsFormat, "output format: text or json")
	complete(presetsCmd, "format", []string{"text", "json"})
	presetsCmd.Run = func(_ *cobra.Command, args []string) {
		*code = runPresets(args, presetsFormat, stdout, stderr)
	}

	pricesCmd := &cobra.Command{
		Use:   "prices [MODEL ...]",
		Short: "How each model is priced; without MODEL, what the table holds",
		Long: "How each MODEL is priced: the rates, the table row and source they come from, and whether the\n" +
			"name matched exactly or written another way. Without MODEL, a summary of the table.",
	}
	pricesFormat, pricesFile := "text", ""
	pricesCmd.Flags().StringVar(&pricesFormat, "format", pricesFormat, "output format: text or json")
	pricesCmd.Flags().StringVar(&pricesFile, "prices", "", "show this LiteLLM-shaped file instead of the embedded table")
	complete(pricesCmd, "format", []string{"text", "json"})
	pricesCmd.Run = func(_ *cobra.Command, args []string) {
		*code = runPrices(args, pricesFormat, pricesFile, stdout, stderr)
	}
	root.AddCommand(reportCmd, sweepCmd, presetsCmd, pricesCmd, newPolicyCommand(stdout, stderr, code),
		newHookCommand(stdin, stdout, stderr, code), newStatuslineCommand(stdin, stdout, stderr, code),
		newManCommand(root, stdout))
	completionCommand(root, stdout)
	return root
}

// completionShells are the shells cobra writes completion scripts for.
var completionShells = []string{"bash", "zsh", "fish", "powershell"}

// completionCommand makes cobra's completion command refuse a shell it has
// no script for, where it printed its help and exited 0. Its scripts go
// to stdout as they are, never through the help's writer: cobra takes the
// root's writer when the command is made.
func completionCommand(root *cobra.Command, stdout io.Writer) {
	root.SetOut(stdout)
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("no completion script for %q: spillway completes %s or %s", args[0],
				strings.Join(completionShells[:len(completionShells)-1], ", "), completionShells[len(completionShells)-1])
		}
	}
}

// helpWriter is where help and --version go: stdout, with the spaces fang
// pads each line of help with to 120 columns taken off when stdout is
// not a terminal, where they only clutter a file or a pager.
func helpWriter(stdout io.Writer) io.Writer {
	if isTerminal(stdout) {
		return stdout
	}
	return &trimWriter{w: stdout}
}

// trimWriter writes each line without its trailing spaces.
type trimWriter struct {
	w       io.Writer
	pending []byte // spaces not yet known to end a line
}

func (t *trimWriter) Write(p []byte) (int, error) {
	out := make([]byte, 0, len(p))
	for _, c := range p {
		switch c {
		case ' ':
			t.pending = append(t.pending, c)
			continue
		case '\n':
			t.pending = t.pending[:0]
		default:
			out = append(out, t.pending...)
			t.pending = t.pending[:0]
		}
		out = append(out, c)
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// complete offers values as the completions of a flag's argument.
func complete(c *cobra.Command, name string, values []string) {
	_ = c.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// batchGC trades memory for speed in the batch commands: they hold a few
// sessions at a time, so collecting less often costs tens of megabytes and
// saves a fifth of the time. GOGC, when set, still decides.
func batchGC() { memory.SetBaseline(400) }

// completeCommon offers the values of the flags commonFlags registers.
// The presets are listed only when a shell asks: building every preset
// on each start was a third of the hook's start-up, which Claude Code
// pays on every tool call.
func completeCommon(c *cobra.Command) {
	_ = c.RegisterFlagCompletionFunc("preset", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var presets []string
		for _, p := range policy.Presets() {
			presets = append(presets, p.Name)
		}
		return presets, cobra.ShellCompDirectiveNoFileComp
	})
	var units, formats []string
	for _, u := range policy.Units {
		units = append(units, string(u))
	}
	formats = append(formats, "auto")
	for _, f := range transcript.Formats {
		formats = append(formats, string(f))
	}
	complete(c, "unit", units)
	complete(c, "input-format", formats)
	complete(c, "encoding", []string{string(tokens.O200kBase), string(tokens.Cl100kBase)})
	_ = c.MarkFlagFilename("policy", "json")
	_ = c.MarkFlagFilename("prices", "json")
	_ = c.MarkFlagDirname("spill-dir")
}

// commonFlags are the flags every command that reads sessions takes.
type commonFlags struct {
	inputFormat string
	prices      string
	maxLine     string
	policy      policyFlags
	texts       bool // report --texts
}

func (c *commonFlags) register(fs *flag.FlagSet, preset string) {
	fs.StringVar(&c.inputFormat, "input-format", "auto", "transcript format: auto, claude-code, codex, antigravity or generic")
	fs.StringVar(&c.prices, "prices", "", "price file in LiteLLM's shape, used instead of the embedded table")
	fs.StringVar(&c.maxLine, "max-line-bytes", "64MiB", "longest transcript line read; longer lines are skipped with a warning")
	c.policy.register(fs, preset)
}

// loadPrices reads the price file at path, and says on stderr which of
// its rows it left out.
func loadPrices(path string, stderr io.Writer) (*pricing.Table, error) {
	prices, err := pricing.Load(path)
	if err != nil {
		return nil, err
	}
	if n := len(prices.Unreadable); n > 0 {
		more := ""
		if n > 3 {
			more = fmt.Sprintf("; and %d more", n-3)
		}
		fmt.Fprintf(stderr, "spillway: price table %s: left out, unpriced, rows whose fields do not decode or hold a price out of range: %s%s\n",
			termtext.Escape(path), termtext.Escape(strings.Join(prices.Unreadable[:min(n, 3)], "; ")), more)
	}
	return prices, nil
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
		if prices, err = loadPrices(c.prices, stderr); err != nil {
			return app.Options{}, err
		}
	}
	policy, err := c.policy.resolve(fs)
	if err != nil {
		return app.Options{}, err
	}
	maxLine, err := parseMaxLine(c.maxLine)
	if err != nil {
		return app.Options{}, fmt.Errorf("--max-line-bytes: %w", err)
	}
	opt := app.Options{Prices: prices, Read: transcript.Options{Format: f, CheckFormat: f != "", MaxLineBytes: int(maxLine)}, Policy: policy, Texts: c.texts}
	// What spillway's hook cut from the sessions it ran in.
	opt.Ledger, _ = ledger.DefaultDir()
	// Where report and sweep keep each session's figures for the next run,
	// under the tokenizer asked for (named here, not asked of Counter,
	// which would load its ranks for a run that counts nothing).
	if noCache, err := fs.GetBool("no-cache"); err == nil && !noCache {
		opt.CacheDir, _ = index.DefaultCacheDir() // none found: nothing kept
	}
	enc, err := c.policy.tokenEncoding()
	if err != nil {
		return app.Options{}, err // refused whether or not a policy will count
	}
	opt.Encoding = string(enc)
	if !policy.Inert() || c.texts {
		if opt.Counter, err = c.tokenizer(); err != nil {
			return app.Options{}, err
		}
		if opt.SpillRoot, err = c.policy.spillRoot(); err != nil {
			return app.Options{}, err
		}
		opt.WriteSpills = c.policy.spillDir != "" // asked for: written where asked
	}
	return opt, nil
}

// tokenizer is the token counter the flags ask for, opened when a session
// is first counted.
func (c *commonFlags) tokenizer() (app.Counter, error) {
	enc, err := c.policy.tokenEncoding()
	if err != nil {
		return nil, err
	}
	return app.Tokenizer(enc), nil
}

// parseMaxLine reads --max-line-bytes: a size such as 64MiB, at least 1.
func parseMaxLine(s string) (int64, error) {
	n, err := human.ParseSize(s)
	if err == nil && (n < 1 || n > math.MaxInt32) {
		err = fmt.Errorf("%d is not between 1 byte and 2 GiB", n)
	}
	return n, err
}

// noSessions says there is nothing to read, and where it was looked for,
// and returns the exit status.
func noSessions(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "spillway: %s (see spillway -h)\n", termtext.Escape(err.Error()))
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

func runReport(fs *flag.FlagSet, common *commonFlags, gf *groupFlags, paths []string, format, out string, stdin io.Reader, stdout, stderr io.Writer) int {
	g, err := gf.grouping()
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if common.texts && (g.By != "" || g.Cut() || (format != "json" && format != "jsonl")) {
		printError(stderr, errors.New("--texts is for --format json and jsonl, without --by, --since or --until"))
		return exitUsage
	}
	if out != "" && (g.By != "" || g.Cut()) {
		printError(stderr, errors.New("--out is for the sessions' tables (--format parquet or jsonl), without --by, --since or --until"))
		return exitUsage
	}
	if g.By != "" || g.Cut() || format == "text" {
		if out != "" {
			_, err := report.Open(format, out, stdout, "")
			printError(stderr, err)
			return exitUsage
		}
		return printGroups(fs, common, g, paths, "stdin", stdin, format, stdout, stderr)
	}
	if len(paths) == 0 {
		// Every session found, as a folder of them would be.
		if _, err := app.Discover(app.SystemEnv()); err != nil {
			return noSessions(stderr, err)
		}
	}
	return printReport(fs, common, paths, "stdin", stdin, format, out, stdout, stderr)
}

// printReport writes the report of paths ("-" reads stdin, labelled
// stdinName) to stdout, or to the folder out, and returns the exit status.
func printReport(fs *flag.FlagSet, common *commonFlags, paths []string, stdinName string, stdin io.Reader, format, out string, stdout, stderr io.Writer) int {
	opt, err := common.options(fs, stderr)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	opt.StdinName = stdinName
	stdout, stderr, done := withProgress(stdout, stderr, &opt)
	defer done()
	w, err := report.Open(format, out, stdout, opt.Prices.Source)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if out != "" {
		defer onInterrupt(func() {
			report.Abort(w)
			printError(stderr, fmt.Errorf("interrupted: nothing written to %s", out))
		})()
	}
	problems, err := report.Generate(paths, stdin, opt, w, stderr)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	return problems.Status()
}

func runSweep(fs *flag.FlagSet, common *commonFlags, paths []string, format string, stdin io.Reader, stdout, stderr io.Writer) int {
	paths, err := orNewest(paths)
	if err != nil {
		return noSessions(stderr, err)
	}
	opt, err := common.options(fs, stderr)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if opt.Counter == nil {
		if opt.Counter, err = common.tokenizer(); err != nil {
			printError(stderr, err)
			return 1
		}
	}
	width := textWidth(stdout) // of the terminal, before the progress line wraps it
	var done func()
	stdout, stderr, done = withProgress(stdout, stderr, &opt)
	defer done()
	if common.policy.dedupe {
		// sweep --dedupe: the repeat-suppression question rather than the
		// ceilings. Its rows set the repeat knob, so --dedupe alone leaves
		// the preset as it is named.
		if !slices.ContainsFunc(knobs, func(k string) bool { return k != "dedupe" && common.policy.set[k] }) {
			opt.Policy.Name = strings.TrimSuffix(opt.Policy.Name, "+custom")
		}
		dd, problems, err := report.SweepDedupe(paths, stdin, opt, stderr)
		done()
		if err != nil {
			printError(stderr, err)
			return 1
		}
		if err := dd.Write(stdout, format, width); err != nil {
			printError(stderr, err)
			return exitUsage
		}
		return problems.Status()
	}
	sw, problems, err := report.Sweep(paths, stdin, opt, stderr)
	done()
	if err != nil {
		printError(stderr, err)
		return 1
	}
	if err := sw.Write(stdout, format, width); err != nil {
		printError(stderr, err)
		return exitUsage
	}
	return problems.Status()
}

func runPresets(args []string, format string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		printError(stderr, fmt.Errorf("presets takes no arguments, got %q", args))
		return exitUsage
	}
	if err := report.WritePresets(stdout, format, policy.Presets()); err != nil {
		printError(stderr, err)
		return exitUsage
	}
	return 0
}

// The inspector's way to the terminal; tests stand in for both to reach
// the error paths that only a terminal takes.
var (
	isTerminal = func(w io.Writer) bool {
		f, ok := w.(*os.File)
		return ok && term.IsTerminal(f.Fd())
	}
	runUI = ui.Run
)

// textWidth is what the text tables are fitted to: $COLUMNS, else the
// terminal's width, else report.DefaultWidth.
func textWidth(stdout io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := stdout.(*os.File); ok && isTerminal(stdout) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	return report.DefaultWidth
}

// runInspect opens the inspector: on a session, the path given, else the
// one found, else the built-in demo; on the session list when the paths,
// a folder or discovery give more than one. Without a terminal to draw on
// it prints the report instead.
func runInspect(fs *flag.FlagSet, common *commonFlags, paths []string, theme string, follow, noFollow bool, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(paths) > 1 && slices.Contains(paths, "-") {
		fmt.Fprintln(stderr, "spillway: standard input (-) opens alone in the inspector; spillway report takes it with other paths")
		return exitUsage
	}
	if _, err := themes.Pick(theme, true, false); err != nil {
		printError(stderr, err)
		return exitUsage
	}
	// The options are read once, for the list or the inspector; a report
	// instead reads its own.
	terminal := isTerminal(stdout)
	var opt app.Options
	if terminal {
		var err error
		if opt, err = common.options(fs, stderr); err != nil {
			printError(stderr, err)
			return exitUsage
		}
	}
	if code, done := runSessionList(fs, common, opt, paths, theme, follow, noFollow, stdout, stderr); done {
		return code
	}
	src, notice := ui.Source{}, ""
	switch {
	case len(paths) == 1 && paths[0] == "-":
		src = ui.Source{Name: "stdin", Stdin: stdin}
	case len(paths) == 1:
		src = ui.Source{Name: paths[0], Path: paths[0]}
	default:
		if path, err := newestSession(); err == nil {
			src = ui.Source{Name: path, Path: path}
		} else {
			notice = err.Error() + "; showing the built-in demo"
			src = ui.Source{Name: "demo", Data: demoSession}
		}
	}
	if !terminal {
		if notice != "" {
			// The inspector would show it; the report goes where it can be read.
			fmt.Fprintf(stderr, "spillway: %s\n", termtext.Escape(notice))
		}
		name, in := src.Path, stdin
		if src.Data != nil {
			name, in = "-", bytes.NewReader(src.Data)
		} else if src.Stdin != nil {
			name = "-"
		}
		return reportInstead(fs, common, []string{name}, src.Name, in, stdout, stderr)
	}
	dir := false
	if src.Path != "" {
		info, err := os.Stat(src.Path)
		if err != nil {
			printError(stderr, err)
			return 1
		}
		dir = info.IsDir()
	}
	following := follow || (!noFollow && src.Path != "" && (dir || recentlyChanged(src.Path)))
	if src.Stdin != nil && follow {
		// Read to its end before it is shown: a pipe has no file to follow.
		notice, following = "standard input is read to its end, not followed: -f follows files", false
	}
	if dir && !following {
		inputs, err := app.Resolve([]string{src.Path}, app.SystemEnv())
		if err == nil && inputs[0].Err != nil {
			err = inputs[0].Err
		}
		if err != nil {
			printError(stderr, err)
			return 1
		}
		src = ui.Source{Name: inputs[0].Path, Path: inputs[0].Path}
	}
	src.Folder = dir && following
	err := runUI(inspectorOptions(common, opt, ui.Options{Source: src, Follow: following, Theme: theme, Notice: notice}))
	if err != nil {
		printError(stderr, err)
		var nt *transcript.NotTranscriptError
		if errors.As(err, &nt) {
			return exitUsage
		}
		return 1
	}
	return 0
}

// reportInstead prints, where there is no terminal to open the inspector
// on, what spillway report prints for paths under the inspector's policy
// (in this machine's zone, as report's text is), and says on stderr which
// policy that is: report's own default is none.
func reportInstead(fs *flag.FlagSet, common *commonFlags, paths []string, stdinName string, stdin io.Reader, stdout, stderr io.Writer) int {
	g, err := (&groupFlags{}).grouping()
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if pol, err := common.policy.resolve(fs); err == nil { // else printGroups says what is wrong
		fmt.Fprintf(stderr, "spillway: standard output is not a terminal: printing the report under %s, as spillway report --preset %s would\n",
			termtext.Escape(pol.Name), termtext.Escape(strings.TrimSuffix(pol.Name, "+custom")))
	}
	return printGroups(fs, common, g, paths, stdinName, stdin, "text", stdout, stderr)
}

// inspectorOptions completes o with the pipeline's options and the spill
// folder.
func inspectorOptions(common *commonFlags, opt app.Options, o ui.Options) ui.Options {
	spillRoot := opt.SpillRoot
	if spillRoot == "" {
		spillRoot, _ = common.policy.spillRoot()
	}
	o.Read, o.Policy, o.Prices, o.SpillRoot, o.Ledger = opt.Read, opt.Policy, opt.Prices, spillRoot, opt.Ledger
	o.Counter = func() (replay.TokenCounter, error) {
		counter, err := common.tokenizer()
		if err != nil {
			return nil, err
		}
		return counter()
	}
	o.NoColor = os.Getenv("NO_COLOR") != ""
	if settings := userSettingsPath(); settings != "" {
		o.InstallHook, o.HookSettings = inspectorHookInstaller(&common.policy), settings
	}
	return o
}

// runSessionList opens the session list when paths (several, or a folder
// of more than one session) or discovery give more than one session; done
// is false when they give one or none, for the inspector to open that.
// readable counts the inputs that are sessions to read: not a FIFO, nor a
// folder that cannot be listed, which are listed with their error.
func readable(inputs []app.Input) int {
	n := 0
	for _, in := range inputs {
		if in.Err == nil {
			n++
		}
	}
	return n
}

func runSessionList(fs *flag.FlagSet, common *commonFlags, opt app.Options, paths []string, theme string, follow, noFollow bool, stdout, stderr io.Writer) (code int, done bool) {
	switch {
	case len(paths) == 1 && paths[0] == "-":
		return 0, false
	case len(paths) == 1:
		if info, err := os.Stat(paths[0]); err != nil || !info.IsDir() {
			return 0, false
		}
	}
	terminal := isTerminal(stdout)
	var ix *index.Index
	var ixErr error
	if terminal {
		// Opened before the sessions are found, so that it reads its cache
		// meanwhile: a list reopened waited for finding the 2 GB fleet's
		// sessions (50-60 ms) before it began to.
		noCache, _ := fs.GetBool("no-cache")
		ix, ixErr = index.Open(index.Options{Prices: opt.Prices, Read: opt.Read, NoCache: noCache})
	}
	name := ""
	var inputs []app.Input // resolved once: the list starts from them
	switch {
	case len(paths) > 1:
		name = fmt.Sprintf("%d paths", len(paths))
	case len(paths) == 1:
		var err error
		if inputs, err = app.Resolve(paths, app.SystemEnv()); err != nil || readable(inputs) < 2 {
			return 0, false // one session, or an error the inspector reports
		}
		name = paths[0]
	default:
		var err error
		if inputs, err = app.Discover(app.SystemEnv()); err != nil || readable(inputs) < 2 {
			return 0, false
		}
		name = "every session found"
	}
	if !terminal {
		if len(paths) == 0 {
			return 0, false // the newest session's report, as without a list
		}
		return reportInstead(fs, common, paths, "stdin", nil, stdout, stderr), true
	}
	if ixErr != nil {
		printError(stderr, ixErr)
		return exitUsage, true
	}
	o := inspectorOptions(common, opt, ui.Options{Theme: theme, Follow: follow, NoFollow: noFollow, SessionsName: name})
	list := sessions.NewIndexed(paths, app.SystemEnv(), app.Options{Prices: o.Prices, Read: o.Read, Counter: o.Counter}, ix)
	list.Resolved = inputs
	list.Ahead = ui.AheadOf
	o.Sessions = list
	stopScan := list.ScanAhead()
	err := runUI(o)
	stopScan()
	if ferr := ix.Flush(); ferr != nil { // what a followed list left unwritten
		printError(stderr, ferr)
	}
	if err != nil {
		printError(stderr, err)
		return 1, true
	}
	return 0, true
}

// recentlyChanged tells whether a file was written in the last minute: a
// session still running, followed by default.
func recentlyChanged(path string) bool {
	info, err := os.Stat(path)
	return err == nil && time.Since(info.ModTime()) < time.Minute
}

// onInterrupt runs cleanup if the process is interrupted (ctrl-C,
// SIGTERM) before the returned stop is called, then ends it as the signal
// would have.
func onInterrupt(cleanup func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			cleanup()
			signal.Stop(sig)
			if p, err := os.FindProcess(os.Getpid()); err == nil && p.Signal(s) == nil {
				time.Sleep(time.Second) // the signal ends the process
			}
			os.Exit(130)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}

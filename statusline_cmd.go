package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/claudesettings"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/statusline"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// newStatuslineCommand is spillway statusline: the command Claude Code's
// statusLine setting runs.
func newStatuslineCommand(stdin io.Reader, stdout, stderr io.Writer, code *int) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "statusline [policy flags]",
		Short: "Claude Code's status line: cost, what the policy saves, hazards, context, cache time",
		Long: "Reads the JSON Claude Code passes its statusLine command on standard input and prints one line: the " +
			"session's cost as spillway prices it (and Claude Code's own figure when they differ by more than a cent), " +
			"what the policy (--preset, --policy or the policy flags) would save and the hazards it would cause, how full " +
			"the context is and how long the prompt cache has left. It reads on from where the last call stopped, and " +
			"replays the session under the policy in the background; in a session spillway's hook ran in, it says what the " +
			"hook cut and whether that is what the replay predicts. spillway statusline install puts it in Claude Code's " +
			"settings. Whatever goes wrong, it prints a short line, logs " +
			"why in the statusline folder of the user cache folder, and exits 0.",
		Example: `spillway statusline install --preset harness-rs-0.0.50 --max-bytes 8KiB
# try it on a log
echo '{"transcript_path":"session.jsonl"}' | spillway statusline`,
		Args: cobra.NoArgs,
	}
	common, theme, color, width, predict := &commonFlags{}, "auto", "auto", 0, ""
	common.register(cmd.Flags(), policy.DefaultPreset)
	completeCommon(cmd)
	cmd.Flags().StringVar(&theme, "theme", theme, "colours: "+strings.Join(themes.Names, ", ")+" (auto is dark: a status line cannot ask the terminal)")
	complete(cmd, "theme", themes.Names)
	cmd.Flags().StringVar(&color, "color", color, "auto (on a terminal, or when Claude Code runs it), always or never; NO_COLOR forces never")
	complete(cmd, "color", colorModes)
	cmd.Flags().IntVar(&width, "width", 0, "the line's width in cells (default $COLUMNS, which Claude Code sets, else the terminal's)")
	cmd.Flags().StringVar(&predict, "predict", "", "replay the session of this log under the policy and keep the figures (what the status line runs in the background)")
	_ = cmd.Flags().MarkHidden("predict")
	cmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runStatusline(cmd.Flags(), common, theme, color, width, predict, stdin, stdout, stderr)
	}
	// A command line Claude Code runs that cobra rejects still prints a
	// line, which says what is wrong, and exits 0.
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		err = flagError(c, err)
		if c != cmd {
			return err
		}
		fmt.Fprintf(stdout, "spillway statusline: %s\n", termtext.Escape(err.Error()))
		return errLineShown
	})

	var scope, settings string
	var force bool
	target := func(c *cobra.Command) { settingsFlags(c, &scope, &settings) }
	installCmd := &cobra.Command{
		Use:   "install [--scope user|project|local | --settings FILE] [--force] [policy flags]",
		Short: "Make spillway Claude Code's status line",
		Long: "Writes Claude Code's statusLine setting: this binary's absolute path and the policy (a --policy file is " +
			"copied to spillway's config folder; a preset and knobs are written as flags), run again every 5 seconds. Give the policy spillway's " +
			"hook runs with, and the line says whether what the hook cut is what the replay predicts. A status line " +
			"of your own is left as it is unless --force; every other setting is left as it was, and the file is " +
			"written atomically beside a backup (" + claudesettings.BackupSuffix + ").",
		Example: `spillway statusline install --preset harness-rs-0.0.50 --max-bytes 20KiB
spillway statusline install --scope project --policy spillway-policy.json`,
		Args: cobra.NoArgs,
	}
	target(installCmd)
	installCmd.Flags().BoolVar(&force, "force", false, "replace a status line that is not spillway's")
	installCmd.Flags().StringVar(&theme, "theme", theme, "the line's colours, written into its command: "+strings.Join(themes.Names, ", "))
	complete(installCmd, "theme", themes.Names)
	installCmd.Flags().StringVar(&color, "color", color, "auto, always or never, written into its command")
	complete(installCmd, "color", colorModes)
	installCmd.Flags().IntVar(&width, "width", 0, "the line's width in cells, written into its command (default $COLUMNS, which Claude Code sets)")
	installFlags := &policyFlags{}
	installFlags.register(installCmd.Flags(), policy.DefaultPreset)
	_ = installCmd.Flags().MarkHidden("spill-dir") // the line plans spills, writes none
	completeCommon(installCmd)
	installCmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runStatuslineInstall(cmd.Flags(), installFlags, scope, settings, force, stdout, stderr)
	}
	uninstallCmd := &cobra.Command{
		Use:   "uninstall [--scope user|project|local | --settings FILE]",
		Short: "Remove spillway's status line from Claude Code's settings",
		Long:  "Removes Claude Code's statusLine setting when it runs spillway; one of your own is left as it is.",
		Args:  cobra.NoArgs,
	}
	target(uninstallCmd)
	uninstallCmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runStatuslineUninstall(cmd.Flags(), scope, settings, stdout, stderr)
	}
	cmd.AddCommand(installCmd, uninstallCmd)
	return cmd
}

// errLineShown is a bad command line the status line has said on its
// line: the run still succeeds.
var errLineShown = errors.New("the status line says what is wrong")

// statusLineKey is Claude Code's setting of the status line.
const statusLineKey = "statusLine"

// statusLineSetting is the statusLine setting install writes.
type statusLineSetting struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// RefreshInterval has Claude Code (2.1.328 reads it) run the line
	// every so many seconds besides when the conversation changes, so
	// that the cache timer counts down and a replay finished in the
	// background shows.
	RefreshInterval int `json:"refreshInterval,omitempty"`
}

// statusLineRefresh is the refreshInterval install writes, in seconds.
const statusLineRefresh = 5

// installedStatusLine is the settings file's statusLine command, and
// whether it is spillway's: spillway's program, statusline first.
func installedStatusLine(f *claudesettings.File) (command string, ours, ok bool) {
	raw, ok := f.Member(statusLineKey)
	if !ok {
		return "", false, false
	}
	var s statusLineSetting
	if json.Unmarshal(raw, &s) != nil {
		return string(raw), false, true
	}
	return s.Command, isSpillwayCommand(s.Command, "statusline"), true
}

func runStatuslineInstall(fs *flag.FlagSet, flags *policyFlags, scope, settings string, force bool, stdout, stderr io.Writer) int {
	p, err := flags.resolve(fs)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	display, err := displayArgs(fs)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	command, err := ownCommand("statusline", flags, p, display...)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	f, code := settingsFile(fs, scope, settings, stderr)
	if f == nil {
		return code
	}
	path := termtext.Escape(f.Path)
	theirs, ours, ok := installedStatusLine(f)
	if ok && !ours && !force {
		printError(stderr, fmt.Errorf("%s has a status line of its own (%s): spillway leaves it as it is; --force replaces it, keeping the file as it was in %s",
			f.Path, theirs, f.Path+claudesettings.BackupSuffix))
		return 1
	}
	data, err := f.SetMember(statusLineKey, statusLineValue(f, command, ours))
	if err != nil {
		printError(stderr, err)
		return 1
	}
	if string(data) == string(f.Data) {
		fmt.Fprintf(stdout, "spillway's status line is installed already in %s, as asked\n", path)
		return 0
	}
	backup, err := f.Save(data)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "installed spillway's status line in %s: policy %s\n", path, termtext.Escape(p.Name))
	if backup != "" {
		fmt.Fprintf(stdout, "the file as it was: %s\n", termtext.Escape(backup))
	}
	return 0
}

// colorModes are what --color takes.
var colorModes = []string{"auto", "always", "never"}

// displayArgs are the install command's --theme, --color and --width,
// checked as the status line checks them, as its command takes them;
// none when not given.
func displayArgs(fs *flag.FlagSet) ([]string, error) {
	theme, _ := fs.GetString("theme")
	color, _ := fs.GetString("color")
	if _, _, err := statuslineColors(io.Discard, nil, theme, color); err != nil {
		return nil, err
	}
	var args []string
	for _, name := range []string{"theme", "color"} {
		if fs.Changed(name) {
			v, _ := fs.GetString(name)
			args = append(args, "--"+name+"="+v)
		}
	}
	if fs.Changed("width") {
		width, _ := fs.GetInt("width")
		if width < 0 {
			return nil, fmt.Errorf("--width %d: want 0 (the terminal's) or more", width)
		}
		args = append(args, "--width="+strconv.Itoa(width))
	}
	return args, nil
}

// statusLineValue is the statusLine setting install writes: spillway's
// command, refreshed every statusLineRefresh seconds, with what else the
// user set in the setting (Claude Code's padding) kept where it is ours.
func statusLineValue(f *claudesettings.File, command string, ours bool) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a command holds & and >
	_ = enc.Encode(statusLineSetting{Type: "command", Command: command, RefreshInterval: statusLineRefresh})
	out := bytes.TrimSuffix(bytes.TrimSpace(b.Bytes()), []byte("}"))
	var kept map[string]json.RawMessage
	if raw, ok := f.Member(statusLineKey); ok && ours {
		_ = json.Unmarshal(raw, &kept)
	}
	for _, k := range slices.Sorted(maps.Keys(kept)) {
		if k == "type" || k == "command" || k == "refreshInterval" {
			continue
		}
		name, _ := json.Marshal(k)
		out = append(append(append(append(out, ','), name...), ':'), kept[k]...)
	}
	return append(out, '}')
}

func runStatuslineUninstall(fs *flag.FlagSet, scope, settings string, stdout, stderr io.Writer) int {
	f, code := settingsFile(fs, scope, settings, stderr)
	if f == nil {
		return code
	}
	path := termtext.Escape(f.Path)
	command, ours, ok := installedStatusLine(f)
	switch {
	case !ok:
		fmt.Fprintf(stdout, "no status line in %s\n", path)
		return 0
	case !ours:
		fmt.Fprintf(stdout, "the status line in %s is not spillway's (%s): left as it is\n", path, termtext.Escape(command))
		return 0
	}
	data, err := f.RemoveMember(statusLineKey)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	backup, err := f.Save(data)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "removed spillway's status line from %s (the file as it was: %s)\n", path, termtext.Escape(backup))
	return 0
}

func runStatusline(fs *flag.FlagSet, common *commonFlags, theme, color string, width int, predict string, stdin io.Reader, stdout, stderr io.Writer) int {
	opt, err := statuslineOptions(fs, common)
	if err != nil {
		// A command line Claude Code runs: the line says what is wrong.
		fmt.Fprintf(stdout, "spillway statusline: %s\n", termtext.Escape(err.Error()))
		return 0
	}
	if predict != "" {
		lowerPriority()
		if err := statusline.Predict(predict, opt); err != nil {
			printError(stderr, err)
			return 1
		}
		return 0
	}
	env := os.Environ()
	out, styles, err := statuslineColors(stdout, env, theme, color)
	if err != nil {
		fmt.Fprintf(stdout, "spillway statusline: %s\n", termtext.Escape(err.Error()))
		return 0
	}
	opt.Styles = styles
	opt.Width = statuslineWidth(width, stdout)
	// The prediction runs with the flags this status line was given.
	args := []string{"statusline"}
	fs.Visit(func(f *flag.Flag) { args = append(args, "--"+f.Name+"="+f.Value.String()) })
	opt.Start = func(path string) error { return startPredict(args, path) }
	statusline.Run(stdin, out, opt)
	return 0
}

// statuslineOptions are the status line's options from its flags. Unlike
// commonFlags.options it loads no tokenizer: only a prediction counts
// tokens, in a process of its own.
func statuslineOptions(fs *flag.FlagSet, common *commonFlags) (statusline.Options, error) {
	var opt statusline.Options
	f, err := transcript.ParseFormat(common.inputFormat)
	if err != nil {
		return opt, err
	}
	// The embedded table is built only when a log has grown; a
	// prediction made under another build's is made again.
	var prices *pricing.Table
	opt.PricesKey = "embedded prices of spillway " + version()
	if common.prices != "" {
		if prices, err = pricing.Load(common.prices); err != nil {
			return opt, err
		}
		opt.PricesKey = prices.Source
	}
	pol, err := common.policy.resolve(fs)
	if err != nil {
		return opt, err
	}
	maxLine, err := parseMaxLine(common.maxLine)
	if err != nil {
		return opt, fmt.Errorf("--max-line-bytes: %w", err)
	}
	enc, err := tokens.ParseEncoding(common.policy.encoding)
	if err != nil {
		return opt, err
	}
	if opt.Dir, err = index.DefaultCacheDir(); err != nil {
		return opt, errors.New("no folder to keep its state in: set SPILLWAY_CACHE_DIR, XDG_CACHE_HOME or HOME")
	}
	opt.Dir += string(os.PathSeparator) + "statusline"
	opt.Pipeline = app.Options{Prices: prices, Read: transcript.Options{Format: f, MaxLineBytes: int(maxLine)}, Policy: pol,
		Counter: app.Tokenizer(enc)}
	opt.Pipeline.Ledger, _ = ledger.DefaultDir() // without one, no realized figures

	return opt, nil
}

// statuslineColors decides whether the line is coloured, and how: on a
// terminal, and when Claude Code runs it (it sets CLAUDECODE=1 and draws
// the line's ANSI colours, dimmed where the line sets none, as observed
// with 2.1.328), in the colours the terminal's TERM and COLORTERM allow;
// elsewhere (a pipe, a file) plain.
func statuslineColors(stdout io.Writer, env []string, theme, color string) (io.Writer, *themes.Styles, error) {
	palette, err := themes.Pick(theme, true, false)
	if err != nil {
		return nil, nil, err
	}
	getenv := func(k string) string {
		for _, kv := range slices.Backward(env) {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	var profile colorprofile.Profile
	switch color {
	case "never":
		return stdout, nil, nil
	case "always":
		profile = colorprofile.Env(env)
	case "auto":
		if !isTerminal(stdout) && getenv("CLAUDECODE") != "1" {
			return stdout, nil, nil
		}
		profile = colorprofile.Env(env)
	default:
		return nil, nil, fmt.Errorf("--color %q: want auto, always or never", color)
	}
	if getenv("NO_COLOR") != "" || profile <= colorprofile.Ascii {
		return stdout, nil, nil
	}
	return &colorprofile.Writer{Forward: stdout, Profile: profile}, themes.New(palette), nil
}

// claudeMargin is the columns Claude Code 2.1.328 keeps free around its
// status line, two at each side whatever its padding setting, as seen in
// a terminal 40, 60 and 100 columns wide: a longer line is cut short with
// an ellipsis.
const claudeMargin = 4

// statuslineWidth is --width, else $COLUMNS (less Claude Code's margin
// when Claude Code runs it: it sets COLUMNS to the terminal's width),
// else the terminal's width, else 0 (no bound).
func statuslineWidth(width int, stdout io.Writer) int {
	if width > 0 {
		return width
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		if os.Getenv("CLAUDECODE") == "1" {
			n = max(n-claudeMargin, 1)
		}
		return n
	}
	if f, ok := stdout.(*os.File); ok && isTerminal(stdout) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// startPredict runs this program again, with the status line's own flags
// and --predict, in the background: a process of its own that outlives
// the status line, with nothing of its output, so that Claude Code does
// not wait for it. Tests stand in for it.
var startPredict = func(args []string, path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, append(args, "--predict", path)...)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

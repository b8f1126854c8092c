package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/claudesettings"
	"github.com/spillway-dev/spillway/internal/hook"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// hookCommand is what spillway's hook entries run: it is how install
// writes them and how uninstall and status know them.
const hookCommand = "hook claude-code"

// isHookCommand tells whether a settings command is spillway's hook.
func isHookCommand(cmd string) bool { return isSpillwayCommand(cmd, strings.Fields(hookCommand)...) }

// isSpillwayCommand tells whether a settings command runs spillway with
// args first: its program is this spillway (the same file, under any
// name) or a file named spillway. Another tool's command whose words
// merely include them is not spillway's, nor is a program whose name
// only begins with spillway.
func isSpillwayCommand(cmd string, args ...string) bool {
	words, err := shellWords(cmd)
	if err != nil {
		return false
	}
	// Variables set for the command (SPILLWAY_CACHE_DIR=… spillway …),
	// by the shell or through env, come before its program.
	if len(words) > 0 && words[0] == "env" {
		words = words[1:]
	}
	for len(words) > 0 && envAssignment().MatchString(words[0]) {
		words = words[1:]
	}
	if len(words) < 1+len(args) || !slices.Equal(words[1:1+len(args)], args) {
		return false
	}
	if strings.TrimSuffix(filepath.Base(words[0]), ".exe") == "spillway" {
		return true
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	a, errA := os.Stat(words[0])
	b, errB := os.Stat(self)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// newHookCommand is spillway hook: the PostToolUse hook Claude Code runs,
// and the commands that put it in Claude Code's settings and take it out.
func newHookCommand(stdin io.Reader, stdout, stderr io.Writer, code *int) *cobra.Command {
	hookCmd := &cobra.Command{
		Use:   "hook",
		Short: "Enforce a policy in Claude Code: its PostToolUse hook, installed and removed",
		Long: "spillway hook install puts spillway in Claude Code's settings as a PostToolUse hook: each tool " +
			"result then reaches the model as the policy shapes it, exactly as spillway report predicts it for the " +
			"same session without the hook. What it cut is kept in a ledger that report, the inspector and " +
			"spillway hook status show.",
		Args: cobra.NoArgs,
	}
	runCmd := &cobra.Command{
		Use:   "claude-code [policy flags]",
		Short: "The hook Claude Code runs after each tool call (reads its JSON on stdin)",
		Long: "Reads Claude Code's PostToolUse JSON on standard input and prints the tool's output as the policy " +
			"shapes it, or nothing when the policy keeps it. It never fails the call: on any problem it prints " +
			"nothing and logs why in " + filepath.Join("<user cache folder>", "spillway", "hook.log") + ".",
		Args: cobra.ArbitraryArgs,
	}
	runFlags := &policyFlags{}
	runFlags.register(runCmd.Flags(), policy.DefaultPreset)
	runCmd.Run = func(cmd *cobra.Command, _ []string) {
		hook.Run(hookConfig(runFlags, cmd.Flags()), stdin, stdout, stderr)
	}

	var scope, settings string
	target := func(c *cobra.Command) { settingsFlags(c, &scope, &settings) }
	installCmd := &cobra.Command{
		Use:   "install [--scope user|project|local | --settings FILE] [policy flags]",
		Short: "Add spillway's PostToolUse hook to Claude Code's settings",
		Long: "Writes the PostToolUse entry into Claude Code's settings file: the absolute path of this binary, the " +
			"policy (a --policy file is copied to spillway's config folder; a preset and knobs are written as flags) " +
			"and a matcher for the tools the policy shapes. Every other setting and hook is left as it was; the file " +
			"is written atomically beside a backup (" + claudesettings.BackupSuffix + "). Installing again replaces " +
			"spillway's entry only.",
		Example: `spillway hook install --preset harness-rs-0.0.50 --max-bytes 20KiB
spillway hook install --scope project --policy spillway-policy.json`,
		Args: cobra.NoArgs,
	}
	target(installCmd)
	installFlags := &policyFlags{}
	installFlags.register(installCmd.Flags(), policy.DefaultPreset)
	_ = installCmd.Flags().MarkHidden("spill-dir") // the hook writes where the policy's locator says
	completeCommon(installCmd)
	installCmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runHookInstall(cmd.Flags(), installFlags, scope, settings, stdout, stderr)
	}
	uninstallCmd := &cobra.Command{
		Use:   "uninstall [--scope user|project|local | --settings FILE]",
		Short: "Remove spillway's PostToolUse hook from Claude Code's settings",
		Args:  cobra.NoArgs,
	}
	target(uninstallCmd)
	uninstallCmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runHookUninstall(cmd.Flags(), scope, settings, stdout, stderr)
	}
	statusCmd := &cobra.Command{
		Use:   "status [--settings FILE]",
		Short: "Where spillway's hook is installed, with which policy, and what its ledger holds",
		Args:  cobra.NoArgs,
	}
	statusCmd.Flags().StringVar(&settings, "settings", "", "look in this settings file too")
	statusCmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runHookStatus(settings, stdout, stderr)
	}
	hookCmd.AddCommand(runCmd, installCmd, uninstallCmd, statusCmd)
	return hookCmd
}

// runHookFast runs the hook without the command line's machinery: Claude
// Code starts it for every tool call. It reports false when the arguments
// ask for help, which the full command line gives. Whatever else they say,
// the hook runs (a flag it does not know is logged, and the output goes
// through unchanged).
func runHookFast(args []string, stdin io.Reader, stdout, stderr io.Writer) bool {
	fs := flag.NewFlagSet("spillway hook claude-code", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := &policyFlags{}
	flags.register(fs, policy.DefaultPreset)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return false
	}
	cfg := hookConfig(flags, fs)
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err != nil {
		cfg.PolicyErr = fmt.Errorf("the hook's command line: %w", err)
	}
	hook.Run(cfg, stdin, stdout, stderr)
	return true
}

// hookConfig is what the hook runs with, from its flags; a policy that
// cannot be had is the config's PolicyErr, for the hook to log.
func hookConfig(flags *policyFlags, fs *flag.FlagSet) hook.Config {
	cfg := hook.Config{Encoding: flags.encoding, ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR")}
	if dir, err := os.UserCacheDir(); err == nil {
		cfg.Cache = filepath.Join(dir, "spillway")
	}
	cfg.Policy, cfg.PolicyErr = hookPolicy(flags, fs)
	enc, err := flags.tokenEncoding()
	if err != nil && cfg.PolicyErr == nil {
		cfg.PolicyErr = err
	}
	cfg.Counter = app.Tokenizer(enc)
	return cfg
}

// hookPolicy is the policy the flags describe, if the hook can enforce it.
func hookPolicy(flags *policyFlags, fs *flag.FlagSet) (policy.Policy, error) {
	p, err := flags.resolve(fs)
	switch {
	case err != nil:
		return p, err
	case p.Style == harness.ClaudeCode:
		return p, fmt.Errorf("policy %s is Claude Code's own style, which Claude Code applies itself: the hook enforces the other styles", p.Name)
	case p.Inert():
		return p, fmt.Errorf("policy %s never changes a result: nothing for the hook to do", p.Name)
	}
	return p, nil
}

// settingsFlags are the flags that choose Claude Code's settings file.
func settingsFlags(c *cobra.Command, scope, settings *string) {
	c.Flags().StringVar(scope, "scope", "user", "settings file: user (~/.claude), project (.claude/settings.json) or local (.claude/settings.local.json)")
	c.Flags().StringVar(settings, "settings", "", "this settings file instead of a scope's")
	complete(c, "scope", []string{"user", "project", "local"})
	_ = c.MarkFlagFilename("settings", "json")
}

// ownCommand is the shell command that runs this binary's subcommand with
// the policy p of flags (hookArgs): what Claude Code's settings run.
func ownCommand(subcommand string, flags *policyFlags, p policy.Policy, extra ...string) (string, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.Abs(exe)
	}
	if err != nil {
		return "", fmt.Errorf("find spillway's own path: %w", err)
	}
	if goRunBuild(exe) {
		return "", fmt.Errorf("this spillway is go run's temporary build (%s), gone when it exits: install it first (CGO_ENABLED=0 go install .) and run that one", exe)
	}
	args, err := hookArgs(flags, p)
	if err != nil {
		return "", err
	}
	args = append(args, extra...)
	return strings.TrimSpace(shellQuote(exe) + " " + subcommand + " " + strings.Join(quoteAll(args), " ")), nil
}

// goRunBuild tells whether exe is where go run builds a program
// (…/go-build*/b*/exe/NAME), which it deletes when the program exits.
func goRunBuild(exe string) bool {
	dir := filepath.Dir(exe)
	work := filepath.Dir(dir)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(work), "b") &&
		strings.HasPrefix(filepath.Base(filepath.Dir(work)), "go-build")
}

// settingsPath is the settings file the flags name.
func settingsPath(scope, settings string) (string, error) {
	if settings != "" {
		return filepath.Abs(settings)
	}
	home, _ := os.UserHomeDir()
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	return claudesettings.Path(claudesettings.Scope(scope), os.Getenv("CLAUDE_CONFIG_DIR"), home, cwd)
}

func runHookInstall(fs *flag.FlagSet, flags *policyFlags, scope, settings string, stdout, stderr io.Writer) int {
	if fs.Changed("scope") && settings != "" {
		printError(stderr, errTwoFiles)
		return exitUsage
	}
	p, err := hookPolicy(flags, fs)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	matcher, err := hookMatcher(p)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	command, err := ownCommand(hookCommand, flags, p)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	f, code := settingsFile(fs, scope, settings, stderr)
	if f == nil {
		return code
	}
	said, err := installHook(f, p, matcher, command)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, said)
	return 0
}

// installHook writes spillway's hook entry, running command for the tools
// matcher names, into the settings file f, and says what it did.
func installHook(f *claudesettings.File, p policy.Policy, matcher, command string) (string, error) {
	path := termtext.Escape(f.Path)
	data, err := f.Install(claudesettings.Hook{Matcher: matcher, Command: command, Timeout: hookTimeout}, isHookCommand)
	if err != nil {
		return "", err
	}
	if string(data) == string(f.Data) {
		return fmt.Sprintf("spillway's hook is installed already in %s, as asked", path), nil
	}
	backup, err := f.Save(data)
	if err != nil {
		return "", err
	}
	said := fmt.Sprintf("installed spillway's hook in %s: policy %s, tools %s\n", path, termtext.Escape(p.Name), termtext.Escape(matcher))
	if backup != "" {
		said += fmt.Sprintf("the file as it was: %s\n", termtext.Escape(backup))
	}
	return said + "Claude Code reads it when a session starts: sessions already running keep their hooks.", nil
}

// inspectorHookInstaller is what the inspector's w runs to install the
// hook with the policy tuned there: a copy of it in spillway's config
// folder, which the hook's command names, as --policy FILE would.
func inspectorHookInstaller(flags *policyFlags) func(policy.Policy, string) (string, error) {
	return func(p policy.Policy, settings string) (string, error) {
		matcher, err := hookMatcher(p)
		if err != nil {
			return "", err
		}
		copied := *flags
		copied.policyFile = "tuned in the inspector" // any name: hookArgs copies p itself
		command, err := ownCommand(hookCommand, &copied, p)
		if err != nil {
			return "", err
		}
		path, err := filepath.Abs(settings)
		if err != nil {
			return "", err
		}
		f, err := claudesettings.Load(path)
		if err != nil {
			return "", err
		}
		said, err := installHook(f, p, matcher, command)
		return strings.ReplaceAll(said, "\n", "; "), err
	}
}

// userSettingsPath is Claude Code's user settings file, where the
// inspector offers to install the hook; empty where it cannot be told.
func userSettingsPath() string {
	path, err := settingsPath("user", "")
	if err != nil {
		return ""
	}
	return path
}

var errTwoFiles = errors.New("--scope and --settings both choose the file: give one")

// settingsFile reads the settings file --scope or --settings names; nil
// and the exit status when it cannot, having said why.
func settingsFile(fs *flag.FlagSet, scope, settings string, stderr io.Writer) (*claudesettings.File, int) {
	if fs.Changed("scope") && settings != "" {
		printError(stderr, errTwoFiles)
		return nil, exitUsage
	}
	path, err := settingsPath(scope, settings)
	if err != nil {
		printError(stderr, err)
		return nil, exitUsage
	}
	f, err := claudesettings.Load(path)
	if err != nil {
		printError(stderr, err)
		return nil, 1
	}
	return f, 0
}

// hookTimeout is the seconds Claude Code gives the hook before it goes on
// without it.
const hookTimeout = 10

func runHookUninstall(fs *flag.FlagSet, scope, settings string, stdout, stderr io.Writer) int {
	f, code := settingsFile(fs, scope, settings, stderr)
	if f == nil {
		return code
	}
	path := f.Path
	if len(f.Hooks(isHookCommand)) == 0 {
		fmt.Fprintf(stdout, "spillway's hook is not in %s\n", termtext.Escape(path))
		return 0
	}
	data, err := f.Uninstall(isHookCommand)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	backup, err := f.Save(data)
	if err != nil {
		printError(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "removed spillway's hook from %s (the file as it was: %s)\n", termtext.Escape(path), termtext.Escape(backup))
	return 0
}

func runHookStatus(settings string, stdout, stderr io.Writer) int {
	var paths []string
	for _, s := range claudesettings.Scopes {
		// The user's and the project's are one file where the project is
		// the home folder.
		if p, err := settingsPath(string(s), ""); err == nil && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	if settings != "" {
		if p, err := filepath.Abs(settings); err == nil && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	found := 0
	for _, path := range paths {
		f, err := claudesettings.Load(path)
		if err != nil {
			fmt.Fprintf(stdout, "%s: %s\n", termtext.Escape(path), termtext.Escape(err.Error()))
			continue
		}
		for _, h := range f.Hooks(isHookCommand) {
			found++
			fmt.Fprintf(stdout, "installed in %s\n  tools   %s\n  command %s\n  policy  %s\n", termtext.Escape(path),
				termtext.Escape(h.Matcher), termtext.Escape(h.Command), termtext.Escape(describeHookPolicy(h.Command)))
		}
		if command, ours, ok := installedStatusLine(f); ok && ours {
			fmt.Fprintf(stdout, "spillway's status line in %s\n  command %s\n", termtext.Escape(path), termtext.Escape(command))
		}
	}
	if found == 0 {
		fmt.Fprintf(stdout, "spillway's hook is not installed (looked in %s)\n", termtext.Escape(strings.Join(paths, ", ")))
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		printError(stderr, err)
		return 1
	}
	cache = filepath.Join(cache, "spillway")
	sessions, err := ledger.Sessions(filepath.Join(cache, "ledger"))
	if err != nil {
		printError(stderr, err)
		return 1
	}
	var all ledger.Totals
	for _, s := range sessions {
		all.Merge(s.Totals)
	}
	fmt.Fprintf(stdout, "ledger: %s results shaped in %s sessions: %s → %s, %s → %s tokens\n",
		human.Count(int64(all.Results)), human.Count(int64(len(sessions))), human.Bytes(all.Bytes), human.Bytes(all.BytesAfter),
		human.Count(all.Tokens), human.Count(all.TokensAfter))
	for _, s := range sessions[:min(len(sessions), 5)] {
		fmt.Fprintf(stdout, "  %s  %s  %s results, %s → %s tokens\n", s.Last.Local().Format(time.DateTime), termtext.Escape(s.ID),
			human.Count(int64(s.Totals.Results)), human.Count(s.Totals.Tokens), human.Count(s.Totals.TokensAfter))
	}
	if lines := lastLines(hook.LogFile(cache), 5); len(lines) > 0 {
		fmt.Fprintf(stdout, "last lines of %s:\n", termtext.Escape(hook.LogFile(cache)))
		for _, l := range lines {
			fmt.Fprintf(stdout, "  %s\n", termtext.Escape(l))
		}
	}
	return 0
}

// describeHookPolicy says which policy a hook command runs.
func describeHookPolicy(command string) string {
	_, args, ok := strings.Cut(command, " "+hookCommand)
	if !ok {
		return "?"
	}
	words, err := shellWords(args)
	if err != nil {
		return "? (" + err.Error() + ")"
	}
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flags := &policyFlags{}
	flags.register(fs, policy.DefaultPreset)
	if err := fs.Parse(words); err != nil {
		return "? (" + err.Error() + ")"
	}
	p, err := hookPolicy(flags, fs)
	if err != nil {
		return "none: " + err.Error()
	}
	// The knobs the hook runs with, not the preset's description, which
	// flags may have changed.
	parts := []string{p.Name, string(p.Style)}
	if p.Ceiling > 0 {
		parts = append(parts, "ceiling "+policy.FormatSize(p.Ceiling, p.Unit))
	}
	if len(p.PerTool) > 0 {
		parts = append(parts, "per-tool ceilings")
	}
	parts = append(parts, string(p.Action))
	if p.Dedupe.Enabled {
		parts = append(parts, "repeats suppressed from the "+human.Ordinal(p.Dedupe.From)+" identical call")
	}
	if len(p.Exclude) > 0 {
		parts = append(parts, "excluded: "+strings.Join(p.Exclude, ", "))
	}
	return strings.Join(parts, " · ")
}

// lastLines are the last n lines of a file, read from its last 64 KiB.
func lastLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil
	}
	from := max(0, info.Size()-64<<10)
	buf := make([]byte, info.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	return lines[max(0, len(lines)-n):]
}

// hookMatcher is the matcher of the tools the policy may act on: those
// whose output the hook can replace and the policy limits, and, for repeat
// suppression, the tools that clear what it has seen.
func hookMatcher(p policy.Policy) (string, error) {
	if p.Dedupe.Enabled && p.Dedupe.Clear != policy.ClearSamePath {
		return "*", nil // every call but a read-only one forgets
	}
	var names []string
	for _, tool := range []string{"Read", "Bash", "Grep", "Glob", "WebFetch"} {
		if _, limited := p.CeilingFor(tool); limited && !p.Excluded(tool) {
			names = append(names, tool)
		}
	}
	mcp := false
	if _, limited := p.CeilingFor("mcp__server__tool"); limited {
		mcp = true
	}
	for tool, c := range p.PerTool {
		mcp = mcp || (strings.HasPrefix(tool, "mcp__") && c > 0)
	}
	if p.Dedupe.Enabled {
		for _, tool := range []string{"Read", "Grep", "Glob"} {
			if p.Risk.Classify(tool) == policy.ReadOnly && (len(p.Dedupe.Tools) == 0 || slices.Contains(p.Dedupe.Tools, tool)) &&
				!slices.Contains(names, tool) && !p.Excluded(tool) {
				names = append(names, tool)
			}
		}
		names = append(names, "Edit", "MultiEdit", "Write", "NotebookEdit") // they clear what was seen of their files
	}
	if len(names) == 0 && !mcp {
		return "", fmt.Errorf("policy %s limits no tool whose output the hook can replace (Read, Bash, Grep, Glob, WebFetch, MCP tools)", p.Name)
	}
	if !mcp {
		return strings.Join(names, "|"), nil
	}
	return "^(" + strings.Join(append(names, "mcp__.*"), "|") + ")$", nil
}

// hookArgs are the policy flags of the hook's command: a --policy file is
// copied, with the knobs given applied, to spillway's config folder; a
// preset and its knobs are written as they were given.
func hookArgs(flags *policyFlags, p policy.Policy) ([]string, error) {
	var args []string
	if flags.set["encoding"] {
		args = append(args, "--encoding="+flags.encoding)
	}
	if flags.policyFile != "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return nil, fmt.Errorf("find the config folder for the hook's policy: %w", err)
		}
		path, err := savePolicyCopy(filepath.Join(dir, "spillway"), p)
		if err != nil {
			return nil, err
		}
		return append(args, "--policy="+path), nil
	}
	if flags.set["preset"] {
		args = append(args, "--preset="+flags.preset)
	}
	for _, name := range knobs {
		if !flags.set[name] {
			continue
		}
		switch name {
		case "dedupe", "no-dedupe", "spill", "no-spill":
			args = append(args, "--"+name)
		case "max-bytes":
			args = append(args, "--max-bytes="+flags.maxBytes)
		case "unit":
			args = append(args, "--unit="+flags.unit)
		case "dedupe-from":
			args = append(args, "--dedupe-from="+strconv.Itoa(flags.dedupeFrom))
		case "preview-head":
			args = append(args, "--preview-head="+strconv.FormatInt(flags.previewHead, 10))
		case "preview-tail":
			args = append(args, "--preview-tail="+strconv.FormatInt(flags.previewTail, 10))
		case "exclude":
			args = append(args, "--exclude="+flags.exclude)
		}
	}
	return args, nil
}

// savePolicyCopy writes p where the hook reads it, named by its content.
func savePolicyCopy(dir string, p policy.Policy) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".hook-policy-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := policy.Save(tmp.Name(), p, true); err != nil {
		return "", err
	}
	data, err := os.ReadFile(tmp.Name())
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	path := filepath.Join(dir, "hook-policy-"+hex.EncodeToString(sum[:6])+".json")
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return path, nil
}

// shellPlain is a word the shell takes as it is (compiled when a command
// is written, not at every start).
var shellPlain = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`) })

// shellQuote quotes s for the shell Claude Code runs hook commands with.
func shellQuote(s string) string {
	if shellPlain().MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return out
}

// envAssignment is a word that sets a variable for the command after it.
var envAssignment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// shellWords splits a settings command into words as a shell would, for
// the forms commands take there: plain words, backslash escapes, single-
// and double-quoted stretches.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quoted, dquoted := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case dquoted && c == '"':
			dquoted = false
		case dquoted && c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
		case dquoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == '"':
			dquoted, in = true, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	quoted = quoted || dquoted
	if quoted {
		return nil, errors.New("an unclosed quote")
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}

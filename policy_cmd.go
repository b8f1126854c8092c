package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spillway-dev/spillway/guard/export"
	"github.com/spillway-dev/spillway/guard/policy"
)

// newPolicyCommand is spillway policy: what to do with a tuned policy.
// Its one subcommand, export, says the policy in a harness's own
// configuration.
func newPolicyCommand(stdout, stderr io.Writer, code *int) *cobra.Command {
	policyCmd := &cobra.Command{
		Use:   "policy",
		Short: "Take a tuned policy to a harness",
		Args:  cobra.NoArgs,
	}
	exportCmd := &cobra.Command{
		Use:   "export --to HARNESS",
		Short: "Print the policy in a harness's own configuration",
		Long: "Prints the policy (--policy FILE as the inspector's w writes it, or --preset and the policy flags, as " +
			"report takes them) in the configuration of HARNESS: harness-rs (a Rust ToolResultPolicy), agentscope " +
			"(ToolResultEvictionConfig builder calls), claude-code (the environment variables it documents), codex " +
			"(config.toml), deepseek (the spill-policy plugin's settings), opencode (tool_output in opencode.jsonc) or " +
			"gemini-cli (tools.truncateToolOutputThreshold in settings.json). What the harness has no setting for is " +
			"a comment line saying so, and the line under the first names each such knob of the policy.",
		Example: `spillway policy export --to codex --preset codex --max-bytes 8000
spillway policy export --to harness-rs --policy spillway-policy.json`,
		Args: cobra.NoArgs,
	}
	flags, to := &policyFlags{}, ""
	flags.register(exportCmd.Flags(), policy.DefaultPreset)
	for _, name := range []string{"encoding", "spill-dir"} {
		_ = exportCmd.Flags().MarkHidden(name) // they shape a replay, not the policy
	}
	exportCmd.Flags().StringVar(&to, "to", "", "harness: "+strings.Join(export.TargetNames(), ", "))
	complete(exportCmd, "to", export.TargetNames())
	completeCommon(exportCmd)
	exportCmd.Run = func(cmd *cobra.Command, _ []string) {
		*code = runPolicyExport(cmd, flags, to, stdout, stderr)
	}
	policyCmd.AddCommand(exportCmd)
	return policyCmd
}

func runPolicyExport(cmd *cobra.Command, flags *policyFlags, to string, stdout, stderr io.Writer) int {
	if to == "" {
		printError(stderr, fmt.Errorf("policy export needs --to: %s", strings.Join(export.TargetNames(), ", ")))
		return exitUsage
	}
	target, err := export.ParseTarget(to)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	p, err := flags.resolve(cmd.Flags())
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	text, err := export.Render(p, target)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		printError(stderr, err)
		return 1
	}
	return 0
}

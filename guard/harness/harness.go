// Package harness reproduces, to the byte, the texts five agent harnesses
// put in a model's context when a tool result is too large or repeated
// (harness-rs, AgentScope, DeepSeek Harness, Claude Code, Codex CLI):
// their truncation markers, spill notices and repeat stubs, the way each
// counts a result's size, and the parsers that find, in a recorded
// result, the file the agent itself spilled it to.
package harness

// Style names the harness whose texts (truncation markers, spill notices,
// repeat stubs, paths) a policy reproduces to the byte.
type Style string

// Styles.
const (
	HarnessRS  Style = "harness-rs"
	AgentScope Style = "agentscope"
	DeepSeek   Style = "deepseek"
	ClaudeCode Style = "claude-code"
	Codex      Style = "codex"
)

package report

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// appendCause appends the call's largest cost part, "–" when it has no price.
func appendCause(row []byte, c *Call) []byte {
	if c.CostDetail == nil {
		return append(row, "–"...)
	}
	return append(row, c.CostDetail.Cause...)
}

// toolName is a tool's name for the text report.
func toolName(name string) string {
	if name == "" {
		return "(unnamed)"
	}
	return termtext.Escape(name)
}

// writeByTool lists the results by tool: how many, their size, and, when
// their tokens were counted or the recorded prompts measure them, what
// carrying them cost, with the policy's figures beside when one is set;
// its note is wrapped to lineWidth.
func writeByTool(b *strings.Builder, s *Session, active bool, lineWidth int) {
	if len(s.ByTool) == 0 {
		return
	}
	counted, priced := false, false
	width := len("tool")
	for _, t := range s.ByTool {
		counted = counted || t.Tokens != nil
		priced = priced || t.CarryCostUSD != nil
		width = max(width, ansi.StringWidth(toolName(t.Tool)))
	}
	count := func(n *int64) string {
		if n == nil {
			return "–"
		}
		return human.Count(*n)
	}
	money := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return human.USD(v)
	}
	share := func(v *float64) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f%%", 100**v)
	}
	type column struct {
		title string
		show  bool
		cell  func(t *ToolCost) string
	}
	cols := []column{
		{"tool", true, func(t *ToolCost) string { return termtext.Fit(toolName(t.Tool), width) }}, // left-aligned
		{"calls", true, func(t *ToolCost) string { return fmt.Sprint(t.Calls) }},
		{"bytes", true, func(t *ToolCost) string { return human.Count(t.Bytes) }},
		{"after", active, func(t *ToolCost) string { return human.Count(t.BytesAfter) }},
		{"tokens", counted, func(t *ToolCost) string { return count(t.Tokens) }},
		{"after", counted && active, func(t *ToolCost) string { return count(t.TokensAfter) }},
		{"carry cost", priced, func(t *ToolCost) string { return money(t.CarryCostUSD) }},
		{"share", priced, func(t *ToolCost) string { return share(t.CostShare) }},
		{"after", priced && active, func(t *ToolCost) string { return money(t.CarryCostUSDAfter) }},
		{"share", priced && active, func(t *ToolCost) string { return share(t.CostShareAfter) }},
		{"shaped", active, func(t *ToolCost) string { return fmt.Sprint(t.Shaped) }},
		{"suppressed", active, func(t *ToolCost) string { return fmt.Sprint(t.Suppressed) }},
	}
	if priced {
		b.WriteString("  by tool, costliest to carry first:\n")
	} else {
		b.WriteString("  by tool:\n")
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, c := range cols {
		if c.show {
			title := c.title
			if c.title == "tool" {
				title = termtext.Fit(title, width)
			}
			fmt.Fprint(tw, title+"\t")
		}
	}
	fmt.Fprintln(tw)
	for i := range s.ByTool {
		for _, c := range cols {
			if c.show {
				fmt.Fprint(tw, c.cell(&s.ByTool[i])+"\t")
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if s.Tokens.Carry != "" {
		writeNote(b, s.Tokens.Carry, lineWidth, tableIndent)
	}
}

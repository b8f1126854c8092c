package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spillway-dev/spillway/transcript"
)

// minAdded is the smallest estimated growth a call pair must show to be
// fitted: below it, per-message overhead the estimate cannot see dominates.
const minAdded = 256

// calibrate fits how many of the model's tokens one estimated token is,
// from the growth of the recorded prompt between consecutive calls of one
// context against the estimated tokens of what was added between them
// (the first call's text and tool calls, the results and prompts after it;
// resultTokens[k] is the results' after call k).
// The factor is the median ratio over such pairs.
func calibrate(s *transcript.Session, counter TokenCounter, resultTokens []int64) Calibration {
	var ratios []float64
	for k := 0; k+1 < len(s.Calls); k++ {
		a, b := &s.Calls[k], &s.Calls[k+1]
		if a.Usage == nil || b.Usage == nil || a.Segment != b.Segment || a.Sidechain != b.Sidechain || a.Model != b.Model {
			continue
		}
		growth := b.Usage.Prompt() - a.Usage.Prompt()
		added := int64(counter.Count(a.Text))
		for _, tc := range a.ToolCalls {
			added += int64(counter.Count(tc.Name + string(tc.Input)))
		}
		added += resultTokens[k] // the results' counts, as Prepare made them
		for _, pr := range a.Prompts {
			added += int64(counter.Count(pr.Text))
		}
		if added < minAdded || growth <= 0 {
			continue
		}
		ratios = append(ratios, float64(growth)/float64(added))
	}
	c := Calibration{Factor: 1, Pairs: len(ratios)}
	if len(ratios) < 3 {
		c.Note = fmt.Sprintf("not fitted: %d call pairs with recorded growth (3 needed); estimates are %s counts", len(ratios), encodingOf(counter))
		return c
	}
	slices.Sort(ratios)
	c.Fitted = quantile(ratios, 0.5)
	c.Low, c.High = quantile(ratios, 0.25), quantile(ratios, 0.75)
	if ownTokenizer(s.Models) {
		c.Note = fmt.Sprintf("%s is the model's own tokenizer; fitted ratio %.2f shown, not applied", encodingOf(counter), c.Fitted)
		return c
	}
	c.Factor, c.Applied = c.Fitted, true
	c.Note = fmt.Sprintf("the model's tokenizer is unpublished: %s counts × %.2f, fitted on %d call pairs (middle half %.2f–%.2f)",
		encodingOf(counter), c.Fitted, len(ratios), c.Low, c.High)
	return c
}

func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// ownTokenizer tells whether every model counts with o200k itself (OpenAI's
// GPT-4o, GPT-4.1, GPT-5 and o-series models).
func ownTokenizer(models []string) bool {
	if len(models) == 0 {
		return false
	}
	for _, m := range models {
		m = m[strings.LastIndex(m, "/")+1:]
		if !(strings.HasPrefix(m, "gpt-") || strings.HasPrefix(m, "o1") || strings.HasPrefix(m, "o3") ||
			strings.HasPrefix(m, "o4") || strings.HasPrefix(m, "codex")) {
			return false
		}
	}
	return true
}

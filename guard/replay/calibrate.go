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

// minAddedBytes is the least a call's results must weigh for the prompt
// growth after it to measure them: below it, the call's own message and
// per-message overhead dominate.
const minAddedBytes = 1024

// ByteRate is what a byte of tool result costs in tokens, as the recorded
// prompts measure it: where tokens are not counted (no policy), a
// result's carry cost rests on it.
type ByteRate struct {
	// TokensPerByte is the median over the pairs; 0 when fewer than three
	// pairs measure it.
	TokensPerByte float64
	// Pairs counts the calls measured: each followed, in the same context
	// and on the same model, by a call whose prompt grew by the results
	// that came back between them.
	Pairs int
}

// fitByteRate measures tokens per byte of result from the recorded
// prompts: for each call k followed by call k+1 of the same context,
// chain and model, both with usage, with at least minAddedBytes of
// results and no user message between them, the growth of the prompt
// less call k's recorded output (which call k+1 sends back) over the
// results' bytes. The rate is the median over such pairs.
func fitByteRate(s *transcript.Session) ByteRate {
	var ratios []float64
	for k := 0; k+1 < len(s.Calls); k++ {
		a, b := &s.Calls[k], &s.Calls[k+1]
		if a.Usage == nil || b.Usage == nil || a.Segment != b.Segment || a.Sidechain != b.Sidechain || a.Model != b.Model || len(a.Prompts) > 0 {
			continue
		}
		var bytes int64
		for _, r := range a.Results {
			bytes += int64(r.Bytes())
		}
		added := b.Usage.Prompt() - a.Usage.Prompt() - a.Usage.Output
		if bytes < minAddedBytes || added <= 0 {
			continue
		}
		ratios = append(ratios, float64(added)/float64(bytes))
	}
	if len(ratios) < 3 {
		return ByteRate{Pairs: len(ratios)}
	}
	slices.Sort(ratios)
	return ByteRate{TokensPerByte: quantile(ratios, 0.5), Pairs: len(ratios)}
}

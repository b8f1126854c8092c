// Package pricing prices recorded token usage with a model price table in
// the shape of LiteLLM's model_prices_and_context_window.json, offline.
package pricing

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/spillway-dev/spillway/transcript"
)

// Entry is one model's row, as in the LiteLLM file: USD per token. Absent
// optional rates are nil.
type Entry struct {
	Input        float64  `json:"input_cost_per_token"`
	Output       float64  `json:"output_cost_per_token"`
	CacheRead    *float64 `json:"cache_read_input_token_cost,omitempty"`
	CacheWrite   *float64 `json:"cache_creation_input_token_cost,omitempty"`
	CacheWrite1h *float64 `json:"cache_creation_input_token_cost_above_1hr,omitempty"`

	InputAbove200k        *float64 `json:"input_cost_per_token_above_200k_tokens,omitempty"`
	OutputAbove200k       *float64 `json:"output_cost_per_token_above_200k_tokens,omitempty"`
	CacheReadAbove200k    *float64 `json:"cache_read_input_token_cost_above_200k_tokens,omitempty"`
	CacheWriteAbove200k   *float64 `json:"cache_creation_input_token_cost_above_200k_tokens,omitempty"`
	CacheWrite1hAbove200k *float64 `json:"cache_creation_input_token_cost_above_1hr_above_200k_tokens,omitempty"`

	InputAbove272k      *float64 `json:"input_cost_per_token_above_272k_tokens,omitempty"`
	OutputAbove272k     *float64 `json:"output_cost_per_token_above_272k_tokens,omitempty"`
	CacheReadAbove272k  *float64 `json:"cache_read_input_token_cost_above_272k_tokens,omitempty"`
	CacheWriteAbove272k *float64 `json:"cache_creation_input_token_cost_above_272k_tokens,omitempty"`

	Provider string   `json:"litellm_provider,omitempty"`
	Specific Specific `json:"provider_specific_entry,omitzero"`
}

// Specific holds provider-specific multipliers.
type Specific struct {
	Fast float64 `json:"fast,omitempty"` // fast-mode multiplier of the whole request
}

// Table maps model names to prices.
type Table struct {
	// Source says where the prices come from, with its date.
	Source string
	// Unreadable lists the rows left out because a field had the wrong
	// type, each as `"name": reason`, sorted.
	Unreadable []string
	models     map[string]Entry
}

// Parse reads a LiteLLM-shaped price file. Rows without both an input and
// an output price (image, audio and embedding models, or a price of null)
// are left out, and so is LiteLLM's "sample_spec", which documents the
// fields rather than pricing a model. A row whose fields do not decode is
// left out and listed in Unreadable: one odd row of a file with thousands
// must not make the others unusable.
func Parse(data []byte, source string) (*Table, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("price table %s: %w", source, err)
	}
	t := &Table{Source: source, models: make(map[string]Entry, len(raw))}
	for name, row := range raw {
		var fields map[string]json.RawMessage
		if name == "sample_spec" || json.Unmarshal(row, &fields) != nil {
			continue
		}
		if !priced(fields["input_cost_per_token"]) || !priced(fields["output_cost_per_token"]) {
			continue
		}
		var e Entry
		if err := json.Unmarshal(row, &e); err != nil {
			t.Unreadable = append(t.Unreadable, fmt.Sprintf("%q: %v", name, err))
			continue
		}
		t.models[name] = e
	}
	sort.Strings(t.Unreadable)
	if len(t.models) == 0 {
		return nil, fmt.Errorf("price table %s: no model has input_cost_per_token and output_cost_per_token", source)
	}
	return t, nil
}

// priced tells whether a price field is present and not null.
func priced(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }

// Load reads a LiteLLM-shaped price file from disk.
func Load(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read price table: %w", err)
	}
	return Parse(data, path)
}

//go:generate go run ./internal/genprices -in ../../../shared/prices/prices.json -out table_gen.go -source "ccusage 20.0.24 offline price snapshot (LiteLLM shape), derived 2026-11-30"

// Default returns the embedded table.
func Default() *Table { return &Table{Source: embeddedSource, models: embedded} }

// Models lists the priced model names, sorted.
func (t *Table) Models() []string {
	out := make([]string, 0, len(t.models))
	for m := range t.models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Lookup finds the price of model: its exact name first, then the same
// model written another way (provider prefixes, dated or mode suffixes,
// dots for dashes). It never guesses a neighbouring model: an unknown name
// has no price.
func (t *Table) Lookup(model string) (Entry, string, bool) {
	if e, ok := t.models[model]; ok {
		return e, model, true
	}
	for _, alias := range aliases(model) {
		if e, ok := t.models[alias]; ok {
			return e, alias, true
		}
	}
	return Entry{}, "", false
}

var (
	bracketSuffix = regexp.MustCompile(`\[[^\]]*\]$`)
	modeSuffix    = regexp.MustCompile(`(-fast|-thinking|-latest|:beta|-v\d+:\d+|:\d+)$`)
	dateSuffix    = regexp.MustCompile(`[-@_]\d{8}$`)
)

func aliases(model string) []string {
	name := model
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.Index(name, "anthropic."); i >= 0 {
		name = name[i+len("anthropic."):]
	}
	for {
		trimmed := modeSuffix.ReplaceAllString(bracketSuffix.ReplaceAllString(name, ""), "")
		if trimmed == name {
			break
		}
		name = trimmed
	}
	var out []string
	add := func(s string) {
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	for _, n := range []string{name, strings.ReplaceAll(name, ".", "-")} {
		add(n)
		if d := dateSuffix.ReplaceAllString(n, ""); d != n {
			add(d)
		}
	}
	return out
}

// Long-context thresholds, in tokens.
const (
	perKindThreshold      = 200_000 // *_above_200k_tokens: per request and per token kind
	wholeRequestThreshold = 272_000 // *_above_272k_tokens: the whole request once its prompt is over
)

// Cost prices one request's usage. The 200K tiers apply per token kind to
// the part above 200K; the 272K tiers reprice the whole request when its
// prompt (cached input included) is over 272K. A 1-hour cache write costs
// its own rate, else twice the input rate. Fast mode multiplies the total.
func (e Entry) Cost(u transcript.Usage) float64 {
	write1h := or(e.CacheWrite1h, 2*e.Input)
	var write1hAbove *float64
	switch {
	case e.CacheWrite1hAbove200k != nil:
		write1hAbove = e.CacheWrite1hAbove200k
	case e.InputAbove200k != nil:
		v := 2 * *e.InputAbove200k
		write1hAbove = &v
	}
	write5m := u.CacheCreation - u.CacheCreation1h
	var c float64
	if e.InputAbove272k != nil && u.Prompt() > wholeRequestThreshold {
		c = float64(u.Input)*or(e.InputAbove272k, e.Input) +
			float64(u.CacheRead)*or(e.CacheReadAbove272k, or(e.CacheRead, e.Input)) +
			float64(write5m)*or(e.CacheWriteAbove272k, or(e.CacheWrite, e.Input)) +
			float64(u.CacheCreation1h)*write1h +
			float64(u.Output)*or(e.OutputAbove272k, e.Output)
	} else {
		c = tiered(u.Input, e.Input, e.InputAbove200k) +
			tiered(u.Output, e.Output, e.OutputAbove200k) +
			tiered(write5m, or(e.CacheWrite, e.Input), e.CacheWriteAbove200k) +
			tiered(u.CacheCreation1h, write1h, write1hAbove) +
			tiered(u.CacheRead, or(e.CacheRead, e.Input), e.CacheReadAbove200k)
	}
	if u.Fast && e.Specific.Fast > 0 {
		c *= e.Specific.Fast
	}
	return c
}

// Rates are the prices of one more token of each kind in a request: what
// adding or removing a token there costs, tiers and fast mode included.
type Rates struct {
	Input, CacheWrite, CacheWrite1h, CacheRead, Output float64
}

// Marginal returns the rates at usage u.
func (e Entry) Marginal(u transcript.Usage) Rates {
	write1h := or(e.CacheWrite1h, 2*e.Input)
	var r Rates
	if e.InputAbove272k != nil && u.Prompt() > wholeRequestThreshold {
		r = Rates{
			Input:        or(e.InputAbove272k, e.Input),
			CacheRead:    or(e.CacheReadAbove272k, or(e.CacheRead, e.Input)),
			CacheWrite:   or(e.CacheWriteAbove272k, or(e.CacheWrite, e.Input)),
			CacheWrite1h: write1h,
			Output:       or(e.OutputAbove272k, e.Output),
		}
	} else {
		at := func(n int64, base float64, above *float64) float64 {
			if above != nil && n > perKindThreshold {
				return *above
			}
			return base
		}
		write1hAbove := e.CacheWrite1hAbove200k
		if write1hAbove == nil && e.InputAbove200k != nil {
			v := 2 * *e.InputAbove200k
			write1hAbove = &v
		}
		r = Rates{
			Input:        at(u.Input, e.Input, e.InputAbove200k),
			CacheWrite:   at(u.CacheCreation-u.CacheCreation1h, or(e.CacheWrite, e.Input), e.CacheWriteAbove200k),
			CacheWrite1h: at(u.CacheCreation1h, write1h, write1hAbove),
			CacheRead:    at(u.CacheRead, or(e.CacheRead, e.Input), e.CacheReadAbove200k),
			Output:       at(u.Output, e.Output, e.OutputAbove200k),
		}
	}
	if u.Fast && e.Specific.Fast > 0 {
		f := e.Specific.Fast
		r = Rates{r.Input * f, r.CacheWrite * f, r.CacheWrite1h * f, r.CacheRead * f, r.Output * f}
	}
	return r
}

func tiered(n int64, base float64, above *float64) float64 {
	if above == nil || n <= perKindThreshold {
		return float64(n) * base
	}
	return perKindThreshold*base + float64(n-perKindThreshold)**above
}

func or(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}

// Cost prices usage for model; ok is false when the model has no price.
func (t *Table) Cost(model string, u transcript.Usage) (usd float64, ok bool) {
	e, _, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return e.Cost(u), true
}

// Package pricing prices recorded token usage offline, with a model price
// table in the shape of LiteLLM's model_prices_and_context_window.json, in
// layers: a name the first layer prices (written exactly or another way)
// never falls through to a later one.
package pricing

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spillway-dev/spillway/internal/safefile"
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

	// MaxInputTokens is the model's context window, where the table gives
	// it (0 when not): how full a session's context is. It prices nothing.
	MaxInputTokens TokenLimit `json:"max_input_tokens,omitempty"`
}

// TokenLimit is a token count a price file gives for information. A value
// that is not a number (LiteLLM's sample_spec holds prose there) reads as
// 0, unknown, rather than making the row unreadable: no price hangs on it.
type TokenLimit int64

// UnmarshalJSON reads a number, 128000 or 128000.0, and takes anything
// else as unknown.
func (l *TokenLimit) UnmarshalJSON(data []byte) error {
	var f float64
	if json.Unmarshal(data, &f) != nil || f < 0 || f > math.MaxInt64/2 {
		*l = 0
		return nil
	}
	*l = TokenLimit(f)
	return nil
}

// Specific holds provider-specific multipliers.
type Specific struct {
	Fast float64 `json:"fast,omitempty"` // fast-mode multiplier of the whole request
}

// Table maps model names to prices.
type Table struct {
	// Source says where the prices come from, with their dates: each
	// layer's, first layer first.
	Source string
	// Unreadable lists the rows left out because a field had the wrong
	// type, each as `"name": reason`, sorted.
	Unreadable []string
	layers     []layer
}

type layer struct {
	source string
	models map[string]Entry
}

// Layer describes one source of a table's prices.
type Layer struct {
	Source string
	Models []string // sorted
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
	models := make(map[string]Entry, len(raw))
	t := &Table{Source: source, layers: []layer{{source: source, models: models}}}
	for name, row := range raw {
		var fields map[string]json.RawMessage
		if name == "sample_spec" || json.Unmarshal(row, &fields) != nil {
			continue
		}
		if !priced(fields["input_cost_per_token"]) || !priced(fields["output_cost_per_token"]) {
			continue
		}
		var e Entry
		err := json.Unmarshal(row, &e)
		if err == nil {
			err = e.check()
		}
		if err != nil {
			t.Unreadable = append(t.Unreadable, fmt.Sprintf("%q: %v", name, err))
			continue
		}
		models[name] = e
	}
	sort.Strings(t.Unreadable)
	if len(models) == 0 {
		return nil, fmt.Errorf("price table %s: no model has input_cost_per_token and output_cost_per_token", source)
	}
	return t, nil
}

// maxPrice bounds a price per token: a million dollars, far past any
// model's (ccusage's own tests price tokens at up to $100), and far below
// where sums of tokens priced so reach infinity (a price of 1e308 made the
// costs NaN, and the inspector panic).
const maxPrice = 1e6

// check refuses a price that is negative or past maxPrice.
func (e *Entry) check() error {
	prices := []*float64{&e.Input, &e.Output, e.CacheRead, e.CacheWrite, e.CacheWrite1h,
		e.InputAbove200k, e.OutputAbove200k, e.CacheReadAbove200k, e.CacheWriteAbove200k, e.CacheWrite1hAbove200k,
		e.InputAbove272k, e.OutputAbove272k, e.CacheReadAbove272k, e.CacheWriteAbove272k}
	for _, p := range prices {
		if p != nil && !(*p >= 0 && *p <= maxPrice) {
			return fmt.Errorf("a price of %g a token, not between 0 and %g", *p, maxPrice)
		}
	}
	if f := e.Specific.Fast; !(f >= 0 && f <= 1000) {
		return fmt.Errorf("a fast-mode multiplier of %g, not between 0 and 1000", f)
	}
	return nil
}

// priced tells whether a price field is present and not null.
func priced(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }

// maxPriceFile bounds a price file: LiteLLM's whole table is a few MB.
const maxPriceFile = 64 << 20

// Load reads a LiteLLM-shaped price file from disk: a regular file of at
// most maxPriceFile bytes (a device or a FIFO would never end).
func Load(path string) (*Table, error) {
	data, err := safefile.ReadFile(path, maxPriceFile)
	if err != nil {
		return nil, fmt.Errorf("read price table: %w", err)
	}
	return Parse(data, path)
}

// The embedded table is regenerated from a JSON dump of the
// @pydantic/genai-prices npm package named by $GENAI_PRICES_JSON (see
// docs/policies.md, "Prices"); the ccusage snapshot layer is kept
// as it is.
//
//go:generate go run ./internal/genprices -measured internal/genprices/ccusage-measured.json -measured-source "glm-5 and glm-5.1 as ccusage 20.0.24 priced real sessions, 2026-12-01" -out table_gen.go

// Default returns the embedded table, its layers in the order they win.
func Default() *Table {
	layers := embedded()
	sources := make([]string, len(layers))
	for i, l := range layers {
		sources[i] = l.source
	}
	return &Table{Source: strings.Join(sources, "; "), layers: layers}
}

// embedded builds the embedded layers once, when first asked for.
var embedded = sync.OnceValue(embeddedLayers)

// Layers describes the table's sources, first layer first.
func (t *Table) Layers() []Layer {
	out := make([]Layer, len(t.layers))
	for i, l := range t.layers {
		out[i] = Layer{Source: l.source, Models: sortedNames(l.models)}
	}
	return out
}

// Models lists the priced model names, sorted.
func (t *Table) Models() []string {
	all := make(map[string]Entry)
	for _, l := range t.layers {
		for m, e := range l.models {
			all[m] = e
		}
	}
	return sortedNames(all)
}

func sortedNames(models map[string]Entry) []string {
	out := make([]string, 0, len(models))
	for m := range models {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// Match says how a model name found its price.
type Match struct {
	Key   string   // the table's name for the model
	Layer string   // the source of the layer Key is in
	Rules []string // how the name was rewritten into Key; none for an exact match
	Entry Entry
}

// Match finds the price of model: in each layer in turn, its exact name
// first, then the same model written another way (provider and region
// prefixes, dated or mode suffixes, dots for dashes). It never guesses a
// neighbouring model: an unknown name has no price.
func (t *Table) Match(model string) (Match, bool) {
	// Told apart without a regular expression: every priced call asks.
	// LiteLLM's provider prefix may come first: the same profile
	// (bedrock/us.anthropic.…) was priced at the model's own price.
	name := strings.TrimPrefix(model, "bedrock/")
	if region, _, ok := strings.Cut(name, "."); ok && region != "global" && slices.Contains(bedrockRegions, region) {
		if m, ok := t.regional(model, name, region+"."); ok {
			return m, true
		}
	}
	return t.match(model)
}

// match is Match but for Bedrock's regional prices.
func (t *Table) match(model string) (Match, bool) {
	var candidates []alias
	for _, l := range t.layers {
		if e, ok := l.models[model]; ok {
			return Match{Key: model, Layer: l.source, Entry: e}, true
		}
		if candidates == nil {
			candidates = aliases(model)
		}
		for _, a := range candidates {
			if e, ok := l.models[a.name]; ok {
				return Match{Key: a.name, Layer: l.source, Rules: a.rules, Entry: e}, true
			}
		}
	}
	return Match{}, false
}

// regional prices a Bedrock cross-region name (us.anthropic.claude-…) as
// Bedrock bills it, a tenth over the model's own price from Claude Sonnet
// 4.5 on, and as ccusage prices it (LiteLLM's exact keys for such names):
// the model's own row, its long-context rates and window with it, scaled
// as the table's regional row for the model is to its own price. Only
// where no layer has the name itself (model, or name: model without
// LiteLLM's bedrock/); global. profiles cost the model's own price.
func (t *Table) regional(model, name, prefix string) (Match, bool) {
	for _, l := range t.layers {
		if _, ok := l.models[model]; ok {
			return Match{}, false
		}
		if _, ok := l.models[name]; ok {
			return Match{}, false
		}
	}
	base, ok := t.match(model)
	if !ok || base.Entry.Input <= 0 {
		return Match{}, false
	}
	rest := name[len(prefix):]
	vendor := vendorPrefix().FindString(rest)
	undated := dateSuffix().ReplaceAllString(base.Key, "")
	for _, name := range []string{rest, vendor + base.Key, vendor + undated} {
		for _, name := range []string{"regional." + name, "regional." + name + "-v1:0"} {
			for _, l := range t.layers {
				if e, ok := l.models[name]; ok {
					k := e.Input / base.Entry.Input
					base.Entry = base.Entry.scaled(k)
					base.Rules = append(slices.Clip(base.Rules), fmt.Sprintf("region prefix %q: ×%.2f, as %s is to the model's own price", prefix, k, name))
					return base, true
				}
			}
		}
	}
	return Match{}, false
}

// scaled is e with every rate k times its own.
func (e Entry) scaled(k float64) Entry {
	rate := func(p *float64) *float64 {
		if p == nil {
			return nil
		}
		v := *p * k
		return &v
	}
	e.Input, e.Output = e.Input*k, e.Output*k
	for _, p := range []**float64{&e.CacheRead, &e.CacheWrite, &e.CacheWrite1h,
		&e.InputAbove200k, &e.OutputAbove200k, &e.CacheReadAbove200k, &e.CacheWriteAbove200k, &e.CacheWrite1hAbove200k,
		&e.InputAbove272k, &e.OutputAbove272k, &e.CacheReadAbove272k, &e.CacheWriteAbove272k} {
		*p = rate(*p)
	}
	return e
}

// Lookup finds the price of model as Match does, returning the table's name
// for it.
func (t *Table) Lookup(model string) (Entry, string, bool) {
	m, ok := t.Match(model)
	return m.Entry, m.Key, ok
}

// The patterns that normalise a model name, compiled on first use: a
// program that prices nothing (the hook, --version) does not pay for them.
var (
	bracketSuffix = lazyRegexp(`\[[^\]]*\]$`)
	modeSuffix    = lazyRegexp(`(-fast|-thinking|-latest|:beta|-v\d+:\d+|:\d+)$`)
	dateSuffix    = lazyRegexp(`[-@_]\d{8}$`)
	// Bedrock writes cross-region inference profiles as region.vendor.model.
	regionPrefix = lazyRegexp(`^(` + strings.Join(bedrockRegions, "|") + `)\.`)
	vendorPrefix = lazyRegexp(`^(anthropic|amazon|meta|mistral|deepseek|qwen|openai|moonshot|moonshotai|cohere|ai21|writer|google|zai|minimax)\.`)
)

// bedrockRegions are the regions Bedrock's cross-region inference
// profiles name first (region.vendor.model).
var bedrockRegions = []string{"us", "eu", "apac", "au", "ca", "jp", "us-gov", "global"}

func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// alias is another way of writing a model name, with the rewrites that
// lead to it.
type alias struct {
	name  string
	rules []string
}

// aliases lists the ways model may be written in a table, the least
// rewritten first: each leading path segment dropped in turn (bedrock/,
// vertex_ai/, openrouter/<provider>/), then Bedrock's region and vendor
// prefixes, and for each of these the name without mode or bracket
// suffixes, with dots as dashes, and without a date.
func aliases(model string) []alias {
	var out []alias
	seen := map[string]bool{model: true}
	add := func(name string, rules ...string) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, alias{name, rules})
	}
	var prefixed []alias
	name := model
	drop := func(rest string) {
		prefixed = append(prefixed, alias{rest, []string{fmt.Sprintf("prefix %q dropped", strings.TrimSuffix(model, rest))}})
		name = rest
	}
	for i := strings.Index(name, "/"); i >= 0; i = strings.Index(name, "/") {
		drop(name[i+1:])
	}
	if r := regionPrefix().FindString(name); r != "" {
		drop(name[len(r):])
	}
	if v := vendorPrefix().FindString(name); v != "" {
		drop(name[len(v):])
	} else if i := strings.Index(name, "anthropic."); i >= 0 {
		drop(name[i+len("anthropic."):])
	}
	for _, p := range append([]alias{{model, nil}}, prefixed...) {
		add(p.name, p.rules...)
		add(strings.ReplaceAll(p.name, ".", "-"), append(slices.Clip(p.rules), "dots as dashes")...)
	}
	for _, p := range append([]alias{{model, nil}}, prefixed...) {
		trimmed := p.name
		for {
			t := modeSuffix().ReplaceAllString(bracketSuffix().ReplaceAllString(trimmed, ""), "")
			if t == trimmed {
				break
			}
			trimmed = t
		}
		rules := p.rules
		if trimmed != p.name {
			rules = append(slices.Clip(rules), fmt.Sprintf("suffix %q dropped", strings.TrimPrefix(p.name, trimmed)))
		}
		for _, n := range []alias{{trimmed, rules}, {strings.ReplaceAll(trimmed, ".", "-"), append(slices.Clip(rules), "dots as dashes")}} {
			add(n.name, n.rules...)
			if d := dateSuffix().ReplaceAllString(n.name, ""); d != n.name {
				add(d, append(slices.Clip(n.rules), fmt.Sprintf("date %q dropped", strings.TrimPrefix(n.name, d)))...)
			}
		}
	}
	return out
}

// Cost prices one request's usage at the rates rates picks: the 200K tiers
// per token kind on the part above 200K, the 272K tiers on the whole
// request once its prompt is over 272K. Fast mode multiplies the total.
func (e Entry) Cost(u transcript.Usage) float64 {
	r := e.rates(u)
	c := r.input.cost(u.Input) +
		r.output.cost(u.Output) +
		r.cacheWrite.cost(u.CacheCreation-u.CacheCreation1h) +
		r.cacheWrite1h.cost(u.CacheCreation1h) +
		r.cacheRead.cost(u.CacheRead)
	return c * r.fast
}

// Rates are the prices of one more token of each kind in a request: what
// adding or removing a token there costs, tiers and fast mode included.
type Rates struct {
	Input, CacheWrite, CacheWrite1h, CacheRead, Output float64
}

// Marginal returns the rates at usage u.
func (e Entry) Marginal(u transcript.Usage) Rates {
	r := e.rates(u)
	f := r.fast
	return Rates{
		Input:        r.input.at(u.Input) * f,
		CacheWrite:   r.cacheWrite.at(u.CacheCreation-u.CacheCreation1h) * f,
		CacheWrite1h: r.cacheWrite1h.at(u.CacheCreation1h) * f,
		CacheRead:    r.cacheRead.at(u.CacheRead) * f,
		Output:       r.output.at(u.Output) * f,
	}
}

// Cost prices usage for model; ok is false when the model has no price.
func (t *Table) Cost(model string, u transcript.Usage) (usd float64, ok bool) {
	m, ok := t.Match(model)
	if !ok {
		return 0, false
	}
	return m.Entry.Cost(u), true
}

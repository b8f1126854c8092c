package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
)

// dump is the file scripts/genai-prices-json.mjs writes: the package's
// name, version and publication date, and its providers as the package
// holds them.
type dump struct {
	Package   string     `json:"package"`
	Version   string     `json:"version"`
	Published string     `json:"published"`
	Providers []provider `json:"providers"`
}

type provider struct {
	ID     string  `json:"id"`
	Models []model `json:"models"`
}

type model struct {
	ID     string          `json:"id"`
	Match  matchLogic      `json:"match"`
	Prices json.RawMessage `json:"prices"`
}

// matchLogic is genai-prices' name matcher. Only the names it spells out
// (equals, and the model a starts_with names) are taken: a contains or a
// regex would price neighbouring models, which the table never does.
type matchLogic struct {
	Or         []matchLogic `json:"or"`
	And        []matchLogic `json:"and"`
	Equals     string       `json:"equals"`
	StartsWith string       `json:"starts_with"`
}

func (m matchLogic) names() []string {
	var out []string
	if m.Equals != "" {
		out = append(out, m.Equals)
	}
	if m.StartsWith != "" {
		out = append(out, m.StartsWith)
	}
	for _, o := range m.Or {
		out = append(out, o.names()...)
	}
	return out
}

// conditional is one of a model's dated or timed prices.
type conditional struct {
	Constraint *struct {
		Type      string `json:"type"`
		StartDate string `json:"start_date"`
		StartTime string `json:"start_time"`
		EndTime   string `json:"end_time"`
	} `json:"constraint"`
	Prices map[string]json.RawMessage `json:"prices"`
}

type tiered struct {
	Base  float64 `json:"base"`
	Tiers []struct {
		Start int64   `json:"start"`
		Price float64 `json:"price"`
	} `json:"tiers"`
}

// makers price their own models: where several providers list the same
// name, the maker's price wins, then the clouds', then OpenRouter's, then
// the rest in the dataset's order (up to 100 providers).
var makers = []string{"anthropic", "openai", "google", "deepseek", "zai", "moonshotai", "x-ai", "mistral",
	"cohere", "minimax", "perplexity", "aws", "azure", "openrouter"}

func rank(id string) int {
	if i := slices.Index(makers, id); i >= 0 {
		return i
	}
	return len(makers)
}

// convert turns the dump into a layer. A name several providers list takes
// the best-ranked provider's price; OpenRouter's "vendor/model" names also
// price the bare "model" where no maker lists it, ranked just after the
// makers. Models whose prices the table cannot carry are left out, each
// listed in skipped.
func convert(data []byte) (built, []string, error) {
	var d dump
	if err := json.Unmarshal(data, &d); err != nil {
		return built{}, nil, err
	}
	if d.Package == "" || d.Version == "" || d.Published == "" || len(d.Providers) == 0 {
		return built{}, nil, fmt.Errorf("want package, version, published and providers")
	}
	type row struct {
		entry pricing.Entry
		rank  int
	}
	rows := map[string]row{}
	set := func(name string, e pricing.Entry, r int) {
		if old, ok := rows[name]; !ok || r < old.rank {
			rows[name] = row{e, r}
		}
	}
	var skipped []string
	providers := map[string]bool{}
	for order, p := range d.Providers {
		r := rank(p.ID)*1000 + order
		for _, m := range p.Models {
			e, ok, why := entry(m.Prices, d.Published)
			if why != "" {
				skipped = append(skipped, fmt.Sprintf("%s %s: %s", p.ID, m.ID, why))
			}
			if !ok {
				continue
			}
			e.Provider = p.ID
			providers[p.ID] = true
			for _, name := range append([]string{m.ID}, m.Match.names()...) {
				set(name, e, r)
				if _, bare, ok := strings.Cut(name, "/"); ok && p.ID == "openrouter" && !strings.Contains(bare, "/") {
					set(bare, e, rank("aws")*1000-100+order)
				}
			}
		}
	}
	b := built{
		source:  fmt.Sprintf("%s %s (npm, published %s)", d.Package, d.Version, d.Published),
		entries: map[string]pricing.Entry{},
		note:    fmt.Sprintf(" from %d providers", len(providers)),
	}
	for name, r := range rows {
		b.names = append(b.names, name)
		b.entries[name] = r.entry
	}
	sort.Strings(b.names)
	return b, skipped, nil
}

// entry reads a model's prices in effect on date. ok is false for a model
// without token prices for both input and output (embeddings, images) or
// whose prices the table cannot carry, why saying which when it is worth
// knowing.
func entry(raw json.RawMessage, date string) (e pricing.Entry, ok bool, why string) {
	var prices map[string]json.RawMessage
	var list []conditional
	if json.Unmarshal(raw, &list) == nil {
		// The latest price started by date, unless time-of-day windows
		// cover most of the day: then theirs is the standard price and the
		// rest of the day is the discount (DeepSeek's off-peak hours).
		var start string
		var windows time.Duration
		var windowed map[string]json.RawMessage
		for _, c := range list {
			switch {
			case c.Constraint == nil:
				if prices == nil {
					prices = c.Prices
				}
			case c.Constraint.Type == "start_date" && c.Constraint.StartDate <= date && c.Constraint.StartDate >= start:
				prices, start = c.Prices, c.Constraint.StartDate
			case c.Constraint.Type == "time_of_date":
				from, err1 := time.Parse("15:04:05Z", c.Constraint.StartTime)
				to, err2 := time.Parse("15:04:05Z", c.Constraint.EndTime)
				if err1 != nil || err2 != nil {
					return e, false, fmt.Sprintf("time of day %s-%s unreadable", c.Constraint.StartTime, c.Constraint.EndTime)
				}
				if to.Before(from) {
					to = to.Add(24 * time.Hour)
				}
				windows += to.Sub(from)
				if windowed == nil {
					windowed = c.Prices
				}
			}
		}
		if windows > 12*time.Hour {
			prices = windowed
		}
	} else if err := json.Unmarshal(raw, &prices); err != nil {
		return e, false, fmt.Sprintf("prices: %v", err)
	}
	if prices["input_mtok"] == nil || prices["output_mtok"] == nil {
		return e, false, ""
	}
	type field struct {
		key                string
		base               **float64
		above200, above272 **float64
	}
	var in, out *float64
	fields := []field{
		{"input_mtok", &in, &e.InputAbove200k, &e.InputAbove272k},
		{"output_mtok", &out, &e.OutputAbove200k, &e.OutputAbove272k},
		{"cache_read_mtok", &e.CacheRead, &e.CacheReadAbove200k, &e.CacheReadAbove272k},
		{"cache_write_mtok", &e.CacheWrite, &e.CacheWriteAbove200k, &e.CacheWriteAbove272k},
		{"cache_write_1h_mtok", &e.CacheWrite1h, &e.CacheWrite1hAbove200k, nil},
	}
	if prices["cache_write_mtok"] == nil {
		prices["cache_write_mtok"] = prices["cache_write_5m_mtok"]
	}
	for _, f := range fields {
		v := prices[f.key]
		if v == nil {
			continue
		}
		var flat float64
		if json.Unmarshal(v, &flat) == nil {
			*f.base = perToken(flat)
			continue
		}
		var t tiered
		if err := json.Unmarshal(v, &t); err != nil {
			return e, false, fmt.Sprintf("%s: %v", f.key, err)
		}
		*f.base = perToken(t.Base)
		for _, tier := range t.Tiers {
			// genai-prices bills a tier once the prompt is over its start;
			// the table knows the 200K and 272K tiers only.
			switch {
			case (tier.Start == 199_999 || tier.Start == 200_000) && f.above200 != nil:
				*f.above200 = perToken(tier.Price)
			case (tier.Start == 271_999 || tier.Start == 272_000) && f.above272 != nil:
				*f.above272 = perToken(tier.Price)
			default:
				return e, false, fmt.Sprintf("%s: a tier from %d tokens, which the table cannot carry", f.key, tier.Start)
			}
		}
	}
	e.Input, e.Output = *in, *out
	return e, true, ""
}

// perToken converts a price per million tokens, to 12 significant digits
// so that 0.3 per million is 3e-7 and not 2.9999999999999997e-07.
func perToken(mtok float64) *float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(mtok/1e6, 'g', 12, 64), 64)
	return &v
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// runPrices shows the price table: with model names, how each is priced
// (or that it is not); without, what the table holds and where from.
func runPrices(models []string, format, file string, stdout, stderr io.Writer) int {
	var err error
	if format != "text" && format != "json" {
		printError(stderr, fmt.Errorf("unknown format %q (want text or json)", format))
		return exitUsage
	}
	table := pricing.Default()
	if file != "" {
		if table, err = loadPrices(file, stderr); err != nil {
			printError(stderr, err)
			return 1
		}
	}
	if len(models) == 0 {
		s := summarize(table)
		if format == "json" {
			return writeJSON(stdout, stderr, s)
		}
		writeSummary(stdout, s)
		return 0
	}
	out := pricesOutput{Schema: "spillway.prices/v1"}
	for _, m := range models {
		out.Models = append(out.Models, describe(table, m))
	}
	if format == "json" {
		return writeJSON(stdout, stderr, out)
	}
	for _, d := range out.Models {
		writeModel(stdout, d)
	}
	return 0
}

type pricesOutput struct {
	Schema string       `json:"schema"`
	Models []modelPrice `json:"models"`
}

// modelPrice is how one name is priced. Rates are USD per million tokens,
// as the cost of a call applies them (a missing cache rate is the input
// rate, a missing 1-hour write twice the input rate).
type modelPrice struct {
	Model    string   `json:"model"`
	Priced   bool     `json:"priced"`
	Match    string   `json:"match"` // exact, alias or unpriced
	Rules    []string `json:"rules,omitempty"`
	Key      string   `json:"key,omitempty"`
	Provider string   `json:"provider,omitempty"`
	Source   string   `json:"source,omitempty"`
	Rates    []rate   `json:"per_million,omitempty"`
	Fast     float64  `json:"fast_multiplier,omitempty"`
}

type rate struct {
	Kind    string  `json:"kind"`
	USD     float64 `json:"usd"`
	Derived string  `json:"derived_from,omitempty"` // set when the table has no own rate
}

func describe(table *pricing.Table, model string) modelPrice {
	m, ok := table.Match(model)
	if !ok {
		return modelPrice{Model: model, Match: "unpriced"}
	}
	d := modelPrice{Model: model, Priced: true, Match: "exact", Rules: m.Rules, Key: m.Key,
		Provider: m.Entry.Provider, Source: m.Layer, Fast: m.Entry.Specific.Fast}
	if len(m.Rules) > 0 {
		d.Match = "alias"
	}
	e := m.Entry
	own := func(kind string, p *float64, def float64, from string) rate {
		if p == nil {
			return rate{Kind: kind, USD: perMillion(def), Derived: from}
		}
		return rate{Kind: kind, USD: perMillion(*p)}
	}
	d.Rates = []rate{
		{Kind: "input", USD: perMillion(e.Input)},
		{Kind: "output", USD: perMillion(e.Output)},
		own("cache read", e.CacheRead, e.Input, "input"),
		own("cache write", e.CacheWrite, e.Input, "input"),
		own("1h cache write", e.CacheWrite1h, 2*e.Input, "2 x input"),
	}
	for _, t := range []struct {
		kind string
		p    *float64
	}{
		{"input above 200K", e.InputAbove200k}, {"output above 200K", e.OutputAbove200k},
		{"cache read above 200K", e.CacheReadAbove200k}, {"cache write above 200K", e.CacheWriteAbove200k},
		{"1h cache write above 200K", e.CacheWrite1hAbove200k},
		{"input above 272K", e.InputAbove272k}, {"output above 272K", e.OutputAbove272k},
		{"cache read above 272K", e.CacheReadAbove272k}, {"cache write above 272K", e.CacheWriteAbove272k},
	} {
		if t.p != nil {
			d.Rates = append(d.Rates, rate{Kind: t.kind, USD: perMillion(*t.p)})
		}
	}
	return d
}

// perMillion converts a per-token rate, to 10 significant digits so that
// 3.2e-6 shows as 3.2 and not 3.1999999999999997.
func perMillion(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v*1e6, 'g', 10, 64), 64)
	return r
}

// dollars writes a rate with at least two decimals: $3.20, $0.125.
func dollars(v float64) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i == 2 {
		s += "0"
	}
	return "$" + s
}

func writeModel(w io.Writer, d modelPrice) {
	name := termtext.Escape(d.Model)
	if !d.Priced {
		fmt.Fprintf(w, "%s\n  unpriced: no table name is this model, written exactly or another way; its cost shows as unknown\n\n", name)
		return
	}
	match := "exact"
	if d.Match == "alias" {
		match = "alias: " + strings.Join(d.Rules, ", ")
	}
	fmt.Fprintf(w, "%s\n  match     %s\n  priced as %s (%s)\n  source    %s\n  per 1M tokens:\n", name,
		termtext.Escape(match), termtext.Escape(d.Key), termtext.Escape(d.Provider), termtext.Escape(d.Source))
	for _, r := range d.Rates {
		note := ""
		if r.Derived != "" {
			note = " (" + r.Derived + ")"
		}
		fmt.Fprintf(w, "    %-26s %s%s\n", r.Kind, dollars(r.USD), note)
	}
	if d.Fast > 0 {
		fmt.Fprintf(w, "    %-26s x%s\n", "fast mode", strconv.FormatFloat(d.Fast, 'g', -1, 64))
	}
	fmt.Fprintln(w)
}

type pricesSummary struct {
	Schema    string          `json:"schema"`
	Models    int             `json:"models"`
	Layers    []layerSummary  `json:"layers"`
	Providers []providerCount `json:"providers"`
}

type layerSummary struct {
	Source   string `json:"source"`
	Models   int    `json:"models"`
	Shadowed int    `json:"shadowed"` // names an earlier layer also prices, which that layer wins
}

type providerCount struct {
	Provider string `json:"provider"`
	Models   int    `json:"models"`
}

// summarize counts the table's names per layer and, by the row that wins
// each, per provider.
func summarize(table *pricing.Table) pricesSummary {
	s := pricesSummary{Schema: "spillway.prices/v1"}
	earlier := map[string]bool{}
	for _, l := range table.Layers() {
		ls := layerSummary{Source: l.Source, Models: len(l.Models)}
		for _, name := range l.Models {
			if earlier[name] {
				ls.Shadowed++
			}
		}
		for _, name := range l.Models {
			earlier[name] = true
		}
		s.Layers = append(s.Layers, ls)
	}
	counts := map[string]int{}
	for _, name := range table.Models() {
		m, _ := table.Match(name)
		p := m.Entry.Provider
		if p == "" {
			p = "(none given)"
		}
		counts[p]++
		s.Models++
	}
	for p, n := range counts {
		s.Providers = append(s.Providers, providerCount{p, n})
	}
	sort.Slice(s.Providers, func(i, j int) bool {
		a, b := s.Providers[i], s.Providers[j]
		return a.Models > b.Models || a.Models == b.Models && a.Provider < b.Provider
	})
	return s
}

func writeSummary(w io.Writer, s pricesSummary) {
	layers := fmt.Sprintf("in %d layers; the first layer that prices a name wins", len(s.Layers))
	if len(s.Layers) == 1 {
		layers = "in 1 layer"
	}
	fmt.Fprintf(w, "%s priced, %s.\n", human.Plural(s.Models, "model name"), layers)
	for i, l := range s.Layers {
		shadowed := ""
		if l.Shadowed > 0 {
			shadowed = fmt.Sprintf(", %d of them priced by an earlier layer", l.Shadowed)
		}
		fmt.Fprintf(w, "  %d. %s: %s%s\n", i+1, termtext.Escape(l.Source), human.Plural(l.Models, "name"), shadowed)
	}
	fmt.Fprintf(w, "\nNames per provider (of the row that prices them):\n")
	for _, p := range s.Providers {
		fmt.Fprintf(w, "  %-24s %5d\n", termtext.Escape(p.Provider), p.Models)
	}
}

func writeJSON(stdout, stderr io.Writer, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		fmt.Fprintf(stderr, "spillway: %v\n", err)
		return 1
	}
	stdout.Write(termtext.JSON(append(b, '\n')))
	return 0
}

package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// DedupeDoc is the spillway.sweep-dedupe/v2 document: what each harness's
// rule of repeat suppression would do, from the 2nd or the 3rd identical
// call, on top of the policy without it, summed over the sessions swept.
type DedupeDoc struct {
	Schema   string        `json:"schema"`
	Policy   policy.Policy `json:"policy"`
	Sessions int           `json:"sessions"`
	Results  int           `json:"results"`
	// Unpriced counts sessions and sub-agent logs left out of the dollar
	// figures: nothing recorded, or a model without a price.
	Unpriced int `json:"unpriced_sessions"`
	replay.DedupeSweep
	Assumption string `json:"assumption"`
}

// SweepDedupe replays every session in inputs, and its sub-agents, under
// opt.Policy without repeat suppression, then under each rule of
// replay.DedupeRules from each call of replay.DedupeFroms; opt.Counter must
// be set.
func SweepDedupe(inputs []string, stdin io.Reader, opt Options, errw io.Writer) (*DedupeDoc, Problems, error) {
	rules := replay.DedupeRules(opt.Policy)
	doc := &DedupeDoc{Schema: "spillway.sweep-dedupe/v2", Policy: opt.Policy, Assumption: assumption}
	doc.Alone.From = 0
	for _, r := range rules {
		run := replay.DedupeRuleRun{DedupeRule: r}
		for _, from := range replay.DedupeFroms {
			run.Points = append(run.Points, replay.DedupePoint{From: from})
		}
		doc.Rules = append(doc.Rules, run)
	}
	add := func(sweeps []*replay.DedupeSweep, results int, session bool) {
		sw := sweeps[0]
		if session {
			doc.Sessions++
		}
		doc.Results += results
		priced := sw.Alone.Cost != nil
		if !priced {
			doc.Unpriced++
		}
		addDedupe(&doc.Alone, &sw.Alone, priced)
		for i := range sw.Rules {
			sum, r := &doc.Rules[i], &sw.Rules[i]
			sum.Identical += r.Identical
			sum.Cleared += r.Cleared
			for j := range r.Points {
				addDedupe(&sum.Points[j], &r.Points[j], priced)
			}
		}
	}
	p, err := sweepEach(inputs, stdin, opt, errw, "sweep dedupe", struct {
		Rules []replay.DedupeRule
		Froms []int
	}{rules, replay.DedupeFroms}, func(prep *replay.Prepared) ([]*replay.DedupeSweep, error) {
		sw, err := prep.SweepDedupe(opt.Policy, rules, replay.DedupeFroms)
		return []*replay.DedupeSweep{sw}, err
	}, add)
	return doc, p, err
}

// addDedupe sums pt into sum; its dollars only when the session is priced.
func addDedupe(sum, pt *replay.DedupePoint, priced bool) {
	sum.Suppressed += pt.Suppressed
	sum.Saved += pt.Saved
	sum.Hazards.Add(pt.Hazards)
	sum.AcrossCompaction += pt.AcrossCompaction
	sum.AfterWrite += pt.AfterWrite
	if priced {
		sum.Cost, sum.CostAfter = addKnown(sum.Cost, pt.Cost), addKnown(sum.CostAfter, pt.CostAfter)
	}
}

// dedupeRow is one rule from one identical call, with what it adds to the
// policy without suppression.
type dedupeRow struct {
	rule  string // on the rule's first row only
	pt    *replay.DedupePoint
	saved int64    // tokens beyond the ceiling alone's
	usd   *float64 // dollars beyond
	haz   replay.SweepHazards
}

func (d *DedupeDoc) rows() []dedupeRow {
	var out []dedupeRow
	for i := range d.Rules {
		r := &d.Rules[i]
		for j := range r.Points {
			pt := &r.Points[j]
			row := dedupeRow{pt: pt, saved: pt.Saved - d.Alone.Saved, haz: pt.Hazards}
			if j == 0 {
				row.rule = r.Name
			}
			if pt.CostAfter != nil && d.Alone.CostAfter != nil {
				v := *d.Alone.CostAfter - *pt.CostAfter
				row.usd = &v
			}
			row.haz.UsedHidden -= d.Alone.Hazards.UsedHidden
			row.haz.Retrievable -= d.Alone.Hazards.Retrievable
			out = append(out, row)
		}
	}
	return out
}

// Write writes the repeat-suppression sweep as text, JSON or CSV; the text
// in width cells (0: DefaultWidth).
func (d *DedupeDoc) Write(w io.Writer, format string, width int) error {
	switch format {
	case "json":
		return writeJSON(w, d, false)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"policy", "rule", "dedupe_from", "suppressed", "saved_tokens", "cost_usd", "cost_usd_after",
			"used_hidden", "used_hidden_retrievable", "suppressed_unseen", "stale", "across_compaction", "after_own_write"})
		row := func(rule string, pt *replay.DedupePoint) {
			cw.Write(append(append([]string{csvText(d.Policy.Name), csvText(rule), strconv.Itoa(pt.From), strconv.Itoa(pt.Suppressed),
				itoa(pt.Saved), usd(pt.Cost), usd(pt.CostAfter)}, hazardCells(pt.Hazards)...),
				strconv.Itoa(pt.AcrossCompaction), strconv.Itoa(pt.AfterWrite)))
		}
		row("", &d.Alone)
		for i := range d.Rules {
			for j := range d.Rules[i].Points {
				row(d.Rules[i].Name, &d.Rules[i].Points[j])
			}
		}
		cw.Flush()
		return cw.Error()
	case "text", "":
	default:
		return fmt.Errorf("unknown sweep format %q (want text, json or csv)", format)
	}
	ceiling := "no ceiling"
	if d.Policy.Ceiling > 0 {
		ceiling = "ceiling " + policy.FormatSize(d.Policy.Ceiling, d.Policy.Unit)
	}
	var b strings.Builder
	alone := fmt.Sprintf("saves %s tokens, %s", human.Count(d.Alone.Saved), orDash(human.USD(savedUSD(&d.Alone))))
	if d.Alone.Saved < 0 { // replacements longer than their results
		more := savedUSD(&d.Alone)
		if more != nil {
			*more = -*more
		}
		alone = fmt.Sprintf("costs %s more tokens, %s", human.Count(-d.Alone.Saved), orDash(human.USD(more)))
	}
	writeNote(&b, fmt.Sprintf("Repeat suppression on top of %s (%s), over %s, %s. Without it the policy %s; each rule's figures are what it saves beyond that.",
		termtext.Escape(d.Policy.Name), ceiling, countOf(d.Sessions, "session"), countOf(d.Results, "tool result"), alone), width, "")
	rows := d.rows()
	col := func(title string, priority int, cell func(r *dedupeRow) string) textColumn {
		return figureColumn(rows, title, priority, cell)
	}
	writeColumns(&b, []textColumn{
		{title: "rule", priority: 0, cells: cellsOf(rows, func(r *dedupeRow) string { return termtext.Escape(r.rule) })},
		{title: "suppressing", priority: 0, cells: cellsOf(rows, func(r *dedupeRow) string { return dedupeSetting(r.pt.From) })},
		col("fired", 0, func(r *dedupeRow) string { return human.Count(int64(r.pt.Suppressed)) }),
		col("tokens saved", 2, func(r *dedupeRow) string { return human.Count(r.saved) }),
		col("saved", 1, func(r *dedupeRow) string { return orDash(human.USD(r.usd)) }),
		col("across a compaction", 3, func(r *dedupeRow) string { return strconv.Itoa(r.pt.AcrossCompaction) }),
		col("after own write", 3, func(r *dedupeRow) string { return strconv.Itoa(r.pt.AfterWrite) }),
		col("unseen repeats", 4, func(r *dedupeRow) string { return strconv.Itoa(r.haz.SuppressedUnseen) }),
		col("stale", 5, func(r *dedupeRow) string { return strconv.Itoa(r.haz.Stale) }),
		col("used hidden", 5, func(r *dedupeRow) string { return strconv.Itoa(r.haz.UsedHidden) }),
	}, width, nil)
	for i := range d.Rules {
		writeNote(&b, ruleNote(&d.Rules[i]), width, "")
	}
	if d.Unpriced > 0 {
		writeNote(&b, fmt.Sprintf("Dollars leave out %s with no recorded usage or no price; the tokens count %s.", human.Plural(d.Unpriced, "session"), pronoun(d.Unpriced)), width, "")
	}
	writeNote(&b, "Fired: the repeats suppressed; across a compaction: of them, those whose copy a compaction had taken out of the context; "+
		"after own write: those whose copy was the agent's own write of the file. Savings and hazards are what suppression adds to the policy without it.", width, "")
	writeNote(&b, hazardColumns, width, "")
	writeNote(&b, assumptionSentence(), width, "")
	_, err := io.WriteString(w, b.String())
	return err
}

// assumptionSentence is the assumption as a sentence.
func assumptionSentence() string { return strings.ToUpper(assumption[:1]) + assumption[1:] + "." }

// savedUSD is the dollars a point saves, nil when unknown.
func savedUSD(pt *replay.DedupePoint) *float64 {
	if pt.Cost == nil || pt.CostAfter == nil {
		return nil
	}
	v := *pt.Cost - *pt.CostAfter
	return &v
}

// dedupeSetting names a point's setting.
func dedupeSetting(from int) string {
	if from == 0 {
		return "off"
	}
	return "from the " + human.Ordinal(from) + " identical call"
}

// ruleNote says what a rule takes for a repeat and forgets, how many calls
// repeated an earlier one under it and how many it forgot first, and
// whether it never fired.
func ruleNote(r *replay.DedupeRuleRun) string {
	note := fmt.Sprintf("%s: %s. ", termtext.Escape(r.Name), ruleWords(r.Dedupe))
	repeated := countOf(r.Identical, "call") + " repeated an earlier one it takes for the same"
	switch {
	case r.Identical == 0:
		note += "No call repeated an earlier one it takes for the same"
	case r.Cleared == r.Identical:
		note += repeated + ", each after a call that clears what it remembers"
	case r.Cleared > 0:
		note += fmt.Sprintf("%s, %s of them after a call that clears what it remembers", repeated, human.Count(int64(r.Cleared)))
	default:
		note += repeated
	}
	fired := false
	for _, pt := range r.Points {
		fired = fired || pt.Suppressed > 0
	}
	if !fired {
		note += ": it never fired"
	}
	return note + "."
}

// ruleWords says in words what a rule suppresses and what clears it.
func ruleWords(d policy.Dedupe) string {
	reader := "read"
	if len(d.Tools) > 0 {
		reader = strings.Join(d.Tools, " or ")
	}
	var what string
	switch d.Key {
	case policy.KeyReadPath:
		what = "a " + reader + " of the same file and range"
	default:
		what = "the same read-only call with the same arguments"
		if len(d.Tools) > 0 {
			what += ", by " + reader
		}
	}
	if d.SameContent {
		what += ", its result unchanged"
	}
	switch d.Clear {
	case policy.ClearSamePath:
		what += ", forgotten when the file is written"
	default:
		what += ", forgotten at any call that is not read-only"
	}
	if d.WritesCount {
		what += "; the agent's own write of a file counts as reading it"
	}
	return what
}

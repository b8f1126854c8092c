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

// DedupeDoc is the spillway.sweep-dedupe/v1 document: what repeat
// suppression saves and risks when it is off, and from the 2nd, 3rd and
// 4th identical call, summed over the sessions swept.
type DedupeDoc struct {
	Schema   string        `json:"schema"`
	Policy   policy.Policy `json:"policy"`
	Sessions int           `json:"sessions"`
	Results  int           `json:"results"`
	// Unpriced counts sessions and sub-agent logs left out of the dollar
	// figures: nothing recorded, or a model without a price.
	Unpriced   int                  `json:"unpriced_sessions"`
	Points     []replay.DedupePoint `json:"points"`
	Assumption string               `json:"assumption"`
}

// SweepDedupe replays every session in inputs, and its sub-agents, at each
// repeat-suppression setting of replay.DedupeFroms, the rest of the policy
// as opt has it; opt.Counter must be set.
func SweepDedupe(inputs []string, stdin io.Reader, opt Options, errw io.Writer) (*DedupeDoc, Problems, error) {
	doc := &DedupeDoc{Schema: "spillway.sweep-dedupe/v1", Policy: opt.Policy, Assumption: assumption}
	add := func(points []replay.DedupePoint, results int, session bool) {
		if session {
			doc.Sessions++
		}
		doc.Results += results
		priced := len(points) > 0 && points[0].Cost != nil
		if !priced {
			doc.Unpriced++
		}
		if doc.Points == nil {
			doc.Points = make([]replay.DedupePoint, len(points))
			for i, pt := range points {
				doc.Points[i] = replay.DedupePoint{From: pt.From}
			}
		}
		for i, pt := range points {
			sum := &doc.Points[i]
			sum.Suppressed += pt.Suppressed
			sum.Saved += pt.Saved
			sum.Hazards.Add(pt.Hazards)
			if priced {
				sum.Cost, sum.CostAfter = addKnown(sum.Cost, pt.Cost), addKnown(sum.CostAfter, pt.CostAfter)
			}
		}
	}
	p, err := sweepEach(inputs, stdin, opt, errw, func(prep *replay.Prepared) ([]replay.DedupePoint, error) {
		return prep.SweepDedupe(opt.Policy, replay.DedupeFroms)
	}, add)
	return doc, p, err
}

// dedupeSetting names a point's setting.
func dedupeSetting(from int) string {
	if from == 0 {
		return "off"
	}
	return "from the " + human.Ordinal(from) + " identical call"
}

// Write writes the repeat-suppression sweep as text, JSON or CSV; the text
// in width cells (0: DefaultWidth).
func (d *DedupeDoc) Write(w io.Writer, format string, width int) error {
	switch format {
	case "json":
		return writeJSON(w, d, false)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"policy", "dedupe_from", "suppressed", "saved_tokens", "cost_usd", "cost_usd_after",
			"used_hidden", "used_hidden_retrievable", "suppressed_unseen", "stale"})
		for _, pt := range d.Points {
			cw.Write(append([]string{csvText(d.Policy.Name), strconv.Itoa(pt.From), strconv.Itoa(pt.Suppressed), itoa(pt.Saved),
				usd(pt.Cost), usd(pt.CostAfter)}, hazardCells(pt.Hazards)...))
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
	writeNote(&b, fmt.Sprintf("%s (%s) with repeat suppression off and from the 2nd, 3rd and 4th identical call, over %s, %s",
		termtext.Escape(d.Policy.Name), ceiling, countOf(d.Sessions, "session"), countOf(d.Results, "tool result")), width, "")
	col := func(title string, priority int, cell func(pt *replay.DedupePoint) string) textColumn {
		return figureColumn(d.Points, title, priority, cell)
	}
	writeColumns(&b, []textColumn{
		col("repeats", 0, func(pt *replay.DedupePoint) string { return dedupeSetting(pt.From) }),
		col("suppressed", 2, func(pt *replay.DedupePoint) string { return strconv.Itoa(pt.Suppressed) }),
		col("tokens saved", 3, func(pt *replay.DedupePoint) string { return human.Count(pt.Saved) }),
		col("cost after", 5, func(pt *replay.DedupePoint) string { return human.USD(pt.CostAfter) }),
		col("saved", 1, func(pt *replay.DedupePoint) string {
			if pt.Cost == nil || pt.CostAfter == nil {
				return "–"
			}
			diff := *pt.Cost - *pt.CostAfter
			return human.USD(&diff)
		}),
		col("used hidden", 4, func(pt *replay.DedupePoint) string { return strconv.Itoa(pt.Hazards.UsedHidden) }),
		col("retrievable", 7, func(pt *replay.DedupePoint) string { return strconv.Itoa(pt.Hazards.Retrievable) }),
		col("unseen repeats", 4, func(pt *replay.DedupePoint) string { return strconv.Itoa(pt.Hazards.SuppressedUnseen) }),
		col("stale", 6, func(pt *replay.DedupePoint) string { return strconv.Itoa(pt.Hazards.Stale) }),
	}, width, nil)
	if d.Unpriced > 0 {
		writeNote(&b, fmt.Sprintf("Dollars leave out %s with no recorded usage or no price.", plural(d.Unpriced, "session")), width, "")
	}
	writeNote(&b, fmt.Sprintf("Savings and hazards include the ceiling's; the rows differ by repeat suppression alone; %s.", assumption), width, "")
	writeNote(&b, hazardColumns, width, "")
	_, err := io.WriteString(w, b.String())
	return err
}

package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spillway-dev/spillway/guard/harness"
	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// SweepDoc is the spillway.sweep/v1 document: savings at each ceiling,
// summed over the sessions swept.
type SweepDoc struct {
	Schema   string        `json:"schema"`
	Policy   policy.Policy `json:"policy"`
	Sessions int           `json:"sessions"`
	Results  int           `json:"results"`
	// Unpriced counts sessions and sub-agent logs left out of the dollar
	// figures: nothing recorded, or a model without a price.
	Unpriced   int                 `json:"unpriced_sessions"`
	Points     []replay.SweepPoint `json:"points"`
	Assumption string              `json:"assumption"`
}

// Sweep replays every session in inputs, and its sub-agents, at each sweep
// ceiling; opt.Counter must be set.
func Sweep(inputs []string, stdin io.Reader, opt Options, errw io.Writer) (*SweepDoc, Problems, error) {
	doc := &SweepDoc{Schema: "spillway.sweep/v1", Policy: opt.Policy, Assumption: assumption}
	ceilings := replay.SweepCeilings(opt.Policy)
	add := func(points []replay.SweepPoint, results int, session bool) {
		if session {
			doc.Sessions++
		}
		doc.Results += results
		priced := len(points) > 0 && points[0].Cost != nil
		if !priced {
			doc.Unpriced++
		}
		if doc.Points == nil {
			doc.Points = make([]replay.SweepPoint, len(points))
			for i, pt := range points {
				doc.Points[i] = replay.SweepPoint{Ceiling: pt.Ceiling, Own: pt.Own}
			}
		}
		for i, pt := range points {
			sum := &doc.Points[i]
			sum.Acted += pt.Acted
			sum.Suppressed += pt.Suppressed
			sum.Saved += pt.Saved
			sum.Hazards.Add(pt.Hazards)
			if priced {
				sum.Cost, sum.CostAfter = addKnown(sum.Cost, pt.Cost), addKnown(sum.CostAfter, pt.CostAfter)
			}
		}
	}
	p, err := sweepEach(inputs, stdin, opt, errw, "sweep", ceilings, func(prep *replay.Prepared) ([]replay.SweepPoint, error) {
		return prep.Sweep(opt.Policy, ceilings, replay.Options{})
	}, add)
	if doc.Points == nil {
		doc.Points = []replay.SweepPoint{} // no session swept: an empty list, as the schema has it
	}
	return doc, p, err
}

// sweepEach runs sweep on every session in inputs and on each of its
// sub-agents, and hands add each one's points, in order, with how many
// results it has and whether it is a session (not a sub-agent). What each
// session's sweep found is kept in the session index under kind, for the
// policy, the tokenizer and what (the ceilings or rules swept).
func sweepEach[P any](inputs []string, stdin io.Reader, opt Options, errw io.Writer, kind string, what any, sweep func(*replay.Prepared) ([]P, error), add func(points []P, results int, session bool)) (Problems, error) {
	sweepOne := func(s *app.Session) (swept[P], error) {
		v := swept[P]{Input: s.Prepared.Session.Path}
		for _, prep := range s.Parts() {
			points, err := sweep(prep)
			if err != nil {
				return swept[P]{}, err
			}
			v.Points = append(v.Points, points)
			v.Results = append(v.Results, len(prep.Session.Results()))
		}
		return v, nil
	}
	resolved, err := app.Resolve(inputs, app.SystemEnv())
	if err != nil {
		return Problems{}, err
	}
	opt.Read.SizesOnly = false
	k := &keeping[swept[P]]{
		encode: func(v swept[P]) []byte { b, _ := json.Marshal(v); return b },
		decode: func(b []byte) (v swept[P], err error) { return v, json.Unmarshal(b, &v) },
		input:  func(v swept[P]) string { return v.Input },
	}
	if spec, err := json.Marshal(struct {
		Policy   any
		Encoding string
		What     any
	}{opt.Policy, opt.Encoding, what}); err == nil {
		k.kind, k.spec = kind, spec
	}
	return eachKept(resolved, stdin, opt, k, sweepOne, func(v swept[P]) error {
		for i := range v.Points {
			add(v.Points[i], v.Results[i], i == 0)
		}
		return nil
	}, complainTo(errw))
}

// swept is one session's sweep: the session's points, then each
// sub-agent's, and their results; kept in the index as JSON, which gives
// back every float as it was.
type swept[P any] struct {
	Input   string `json:"input"`
	Points  [][]P  `json:"points"`
	Results []int  `json:"results"`
}

// addKnown adds b to a running sum that starts unknown (nil).
func addKnown(a, b *float64) *float64 {
	v := *b
	if a != nil {
		v += *a
	}
	return &v
}

// Write writes the sweep as text, JSON or CSV; the text in width cells
// (0: DefaultWidth).
func (d *SweepDoc) Write(w io.Writer, format string, width int) error {
	switch format {
	case "json":
		return writeJSON(w, d, false)
	case "csv":
		return d.writeCSV(w)
	case "text", "":
	default:
		return fmt.Errorf("unknown sweep format %q (want text, json or csv)", format)
	}
	var b strings.Builder
	writeNote(&b, fmt.Sprintf("%s over %s, %s (sizes in %s)", termtext.Escape(d.Policy.Name), countOf(d.Sessions, "session"),
		countOf(d.Results, "tool result"), strings.TrimPrefix(policy.FormatSize(0, d.Policy.Unit), "0 ")), width, "")
	col := func(title string, priority int, cell func(pt *replay.SweepPoint) string) textColumn {
		return figureColumn(d.Points, title, priority, cell)
	}
	saved := func(pt *replay.SweepPoint) *float64 {
		if pt.Cost == nil || pt.CostAfter == nil {
			return nil
		}
		s := *pt.Cost - *pt.CostAfter
		return &s
	}
	tails := make([]string, len(d.Points))
	for i, pt := range d.Points {
		if pt.Own {
			tails[i] = " ← the policy's own"
		}
	}
	writeColumns(&b, []textColumn{
		col("ceiling", 0, func(pt *replay.SweepPoint) string { return human.Count(pt.Ceiling) }),
		col("shaped", 3, func(pt *replay.SweepPoint) string { return strconv.Itoa(pt.Acted) }),
		col("suppressed", 5, func(pt *replay.SweepPoint) string { return strconv.Itoa(pt.Suppressed) }),
		col("tokens saved", 2, func(pt *replay.SweepPoint) string { return human.Count(pt.Saved) }),
		col("cost before", 8, func(pt *replay.SweepPoint) string { return human.USD(pt.Cost) }),
		col("cost after", 7, func(pt *replay.SweepPoint) string { return human.USD(pt.CostAfter) }),
		col("saved", 1, func(pt *replay.SweepPoint) string { return orDash(human.USD(saved(pt))) }),
		col("share", 2, func(pt *replay.SweepPoint) string {
			if s := saved(pt); s != nil && *pt.Cost > 0 {
				return fmt.Sprintf("%.1f%%", 100**s / *pt.Cost)
			}
			return "–"
		}),
		col("used hidden", 4, func(pt *replay.SweepPoint) string { return strconv.Itoa(pt.Hazards.UsedHidden) }),
		col("retrievable", 9, func(pt *replay.SweepPoint) string { return strconv.Itoa(pt.Hazards.Retrievable) }),
		col("unseen repeats", 6, func(pt *replay.SweepPoint) string { return strconv.Itoa(pt.Hazards.SuppressedUnseen) }),
		col("stale", 6, func(pt *replay.SweepPoint) string { return strconv.Itoa(pt.Hazards.Stale) }),
	}, width, tails)
	if d.Policy.FollowVersion {
		writeNote(&b, fmt.Sprintf("%s follows each session's version: at its own ceiling each session is replayed as its version did it, at any other as the latest version does at that ceiling.", d.Policy.Name), width, "")
	}
	if d.Unpriced > 0 {
		writeNote(&b, fmt.Sprintf("Dollars leave out %s with no recorded usage or no price; the tokens count %s.", human.Plural(d.Unpriced, "session"), pronoun(d.Unpriced)), width, "")
	}
	writeNote(&b, fmt.Sprintf("Tokens saved are summed over every call that would no longer carry them; %s.", assumption), width, "")
	writeNote(&b, hazardColumns, width, "")
	_, err := io.WriteString(w, b.String())
	return err
}

// hazardColumns says what the hazard columns count.
const hazardColumns = "Used hidden: results the agent's later output quotes from the part the policy hid (retrievable: the part was in a spill file); " +
	"unseen repeats: repeats suppressed while the copy they point back to was cut, spilled or compacted away; " +
	"stale: repeats suppressed whose real result had changed."

// writeCSV writes one row per ceiling; dollar cells are empty when no
// session could be priced.
func (d *SweepDoc) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"policy", "ceiling", "unit", "own", "shaped", "suppressed", "saved_tokens", "cost_usd", "cost_usd_after",
		"used_hidden", "used_hidden_retrievable", "suppressed_unseen", "stale"})
	for _, pt := range d.Points {
		cw.Write(append([]string{csvText(d.Policy.Name), itoa(pt.Ceiling), csvText(string(d.Policy.Unit)), strconv.FormatBool(pt.Own),
			strconv.Itoa(pt.Acted), strconv.Itoa(pt.Suppressed), itoa(pt.Saved), usd(pt.Cost), usd(pt.CostAfter)}, hazardCells(pt.Hazards)...))
	}
	cw.Flush()
	return cw.Error()
}

func hazardCells(h replay.SweepHazards) []string {
	return []string{strconv.Itoa(h.UsedHidden), strconv.Itoa(h.Retrievable), strconv.Itoa(h.SuppressedUnseen), strconv.Itoa(h.Stale)}
}

// WritePresets lists the presets with every knob.
func WritePresets(w io.Writer, format string, presets []policy.Policy) error {
	switch format {
	case "json":
		return writeJSON(w, presets, true)
	case "text", "":
	default:
		return fmt.Errorf("unknown presets format %q (want text or json)", format)
	}
	for i, p := range presets {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s\n  %s\n", p.Name, p.Description)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, kv := range knobs(p) {
			fmt.Fprintf(tw, "  %s\t%s\n", kv[0], kv[1])
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// knobs describes every knob of p in words.
func knobs(p policy.Policy) [][2]string {
	ceiling := "none"
	if p.Ceiling > 0 {
		ceiling = policy.FormatSize(p.Ceiling, p.Unit)
		if p.Allowance > 0 && p.Allowance != 1 {
			ceiling += fmt.Sprintf(" × %g allowance", p.Allowance)
		}
	}
	var perTool []string
	for _, tool := range sortedKeys(p.PerTool) {
		v := p.PerTool[tool]
		if v < 0 {
			perTool = append(perTool, tool+" never")
		} else {
			perTool = append(perTool, fmt.Sprintf("%s %s", tool, human.Count(v)))
		}
	}
	preview := "–"
	if p.PreviewHead > 0 || p.PreviewTail > 0 {
		preview = fmt.Sprintf("head %s, tail %s %s", human.Count(p.PreviewHead), human.Count(p.PreviewTail), strings.TrimPrefix(policy.FormatSize(0, p.PreviewUnit), "0 "))
		if p.LineAligned {
			preview += ", line-aligned"
		}
	}
	if p.Style == harness.DeepSeek {
		preview = "head and tail from the ceiling minus the notice"
	}
	dedupe := "off"
	if p.Dedupe.Enabled {
		dedupe = fmt.Sprintf("from the %s identical call, key %s, clear on %s", human.Ordinal(p.Dedupe.From), p.Dedupe.Key, p.Dedupe.Clear)
		if len(p.Dedupe.Tools) > 0 {
			dedupe += ", only " + strings.Join(p.Dedupe.Tools, ", ")
		}
		if p.Dedupe.SameContent {
			dedupe += ", only if unchanged"
		}
	}
	list := func(s []string) string {
		if len(s) == 0 {
			return "none"
		}
		return strings.Join(s, ", ")
	}
	return [][2]string{
		{"style", string(p.Style)},
		{"unit", string(p.Unit)},
		{"ceiling", ceiling},
		{"per tool", list(perTool)},
		{"action", string(p.Action)},
		{"preview", preview},
		{"dedupe", dedupe},
		{"excluded", list(p.Exclude)},
		{"errors shaped", fmt.Sprint(p.ShapeErrors)},
		{"non-text blocks", string(p.NonText)},
		{"spill path", orDash(p.SpillPath)},
		{"on spill error", orDash(string(p.OnSpillError))},
	}
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// pronoun is "it" for one, "them" for more.
func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

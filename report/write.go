package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/transcript"
)

// Writer writes a report one session at a time, so a long list of sessions
// never has to be held in memory. Render may run on several goroutines at
// once; Write takes the rendered sessions in order.
type Writer interface {
	Begin() error
	Render(*Session) ([]byte, error)
	Write(rendered []byte) error
	End() error
}

// Formats lists the output formats NewWriter accepts.
var Formats = []string{"text", "json", "csv", "jsonl", "parquet"}

// NewWriter returns a writer to w for format ("text", "json", "csv" or
// "jsonl"; "parquet" needs a folder, see Open); prices names the price
// table in the output.
func NewWriter(format string, w io.Writer, prices string) (Writer, error) {
	switch format {
	case "text", "":
		return &textWriter{w: w}, nil
	case "json":
		return &jsonWriter{w: w, prices: prices, written: new(sync.Pool)}, nil
	case "csv":
		return &csvWriter{out: w, w: csv.NewWriter(w)}, nil
	case "jsonl", "parquet":
		return Open(format, "", w, prices)
	}
	return nil, fmt.Errorf("unknown report format %q (want %s)", format, strings.Join(Formats, ", "))
}

type jsonWriter struct {
	w      io.Writer
	prices string
	n      int
	group  *Grouping // nil: no groups
	groups *Groups
	// written holds the buffers of the sessions written, for the next
	// sessions to be rendered into, where every session Write takes was
	// rendered by Render (no group's share kept in the index). Each
	// session's 1.2 MB made afresh was memory the kernel handed out page
	// by page: over the 200 sessions of scripts/bench-report.sh, 0.96 s
	// against 1.01 s (medians of eight runs in turns), 0.37 s of system
	// time against 0.46 s.
	written *sync.Pool
}

func (j *jsonWriter) Begin() error {
	head, _ := encodeJSON(struct {
		Schema string `json:"schema"`
		Prices string `json:"prices"`
	}{Schema, j.prices}, false)
	_, err := fmt.Fprintf(j.w, "%s,\"sessions\":[\n", head[:len(head)-1])
	return err
}

func (j *jsonWriter) Render(s *Session) ([]byte, error) {
	_, calls := grouped(j.group)
	var data []byte
	var err error
	if b, ok := j.reuse(); ok {
		data, err = appendSessionJSON(b, s, calls)
	} else {
		data, err = sessionJSON(s, calls)
	}
	if err != nil {
		return nil, fmt.Errorf("encode session %s: %w", s.Path, err)
	}
	return termtext.JSON(data), nil
}

// encodeJSON is the JSON encoding of every document report writes (a
// --format json session's by sessionJSON, to the same bytes), with the
// controls in its strings escaped for terminals. Its bytes (<, > and &
// escaped, invalid UTF-8 as U+FFFD) are TestJSONGolden's.
func encodeJSON(v any, indent bool) ([]byte, error) {
	var data []byte
	var err error
	if indent {
		data, err = json.MarshalIndent(v, "", "  ")
	} else {
		data, err = json.Marshal(v)
	}
	if err != nil {
		return nil, err
	}
	return termtext.JSON(data), nil
}

// writeJSON writes v as one JSON document and a newline.
func writeJSON(w io.Writer, v any, indent bool) error {
	data, err := encodeJSON(v, indent)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

func (j *jsonWriter) Write(data []byte) error {
	if j.n > 0 {
		if _, err := io.WriteString(j.w, ",\n"); err != nil {
			return err
		}
	}
	j.n++
	_, err := j.w.Write(data)
	if j.written != nil && cap(data) <= keptRendering {
		j.written.Put(&data)
	}
	return err
}

// keptRendering bounds the buffers kept for the next session: a session
// of hundreds of thousands of calls renders hundreds of MB, which kept
// would count as live and let the heap grow by several times it.
const keptRendering = 8 << 20

// reuse is the buffer of a session written, emptied, when there is one.
func (j *jsonWriter) reuse() ([]byte, bool) {
	if j.written == nil {
		return nil, false
	}
	b, ok := j.written.Get().(*[]byte)
	if !ok {
		return nil, false
	}
	return (*b)[:0], true
}

func (j *jsonWriter) End() error {
	if j.groups != nil {
		data, err := encodeJSON(j.groups, false)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(j.w, "\n],%s\n", data[1:])
		return err
	}
	_, err := io.WriteString(j.w, "\n]}\n")
	return err
}

type csvWriter struct {
	out   io.Writer
	w     *csv.Writer
	group *Grouping // nil: no groups
}

func (c *csvWriter) Begin() error {
	header := []string{"session_id", "path", "format", "index", "time", "model",
		"input", "cache_creation", "cache_read", "output", "prompt_tokens", "cost_usd", "tool_calls",
		"prompt_tokens_after", "cost_usd_after"}
	if groups, _ := grouped(c.group); groups {
		header = groupHeader
	}
	err := c.w.Write(header)
	c.w.Flush()
	if err == nil {
		err = c.w.Error()
	}
	return err
}

func (c *csvWriter) Write(data []byte) error {
	_, err := c.out.Write(data)
	return err
}

func (c *csvWriter) Render(s *Session) ([]byte, error) {
	if groups, _ := grouped(c.group); groups {
		return nil, nil // one row per group, at the end
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	row := make([]string, 0, 15)
	// Text from the transcript is escaped as in the text report: CSV is
	// often read in a terminal.
	id, path := csvText(s.SessionID), csvText(s.Path)
	for _, call := range s.Calls {
		row = append(row[:0], id, path, csvText(s.Format), strconv.Itoa(call.Index), csvTime(call.Time), csvText(call.Model))
		if r := call.Recorded; r != nil {
			row = append(row, itoa(r.Input), itoa(r.CacheCreation), itoa(r.CacheRead), itoa(r.Output), itoa(*call.PromptTokens))
		} else {
			row = append(row, "", "", "", "", "")
		}
		row = append(row, usd(call.CostUSD), strconv.Itoa(call.ToolCalls), "", usd(call.CostUSDAfter))
		if call.PromptTokensAfter != nil {
			row[len(row)-2] = itoa(*call.PromptTokensAfter)
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	// A sub-agent's calls follow its session's, under its own path.
	for _, sub := range s.Subagents {
		rows, err := c.Render(sub)
		if err != nil {
			return nil, err
		}
		buf.Write(rows)
	}
	return buf.Bytes(), nil
}

func (c *csvWriter) End() error { return nil }

// csvText is a text cell: escaped as in the text report, and with a quote
// before what a spreadsheet would read as a formula (text starting with =,
// +, -, @, tab or carriage return, after any spaces), as spreadsheets
// themselves mark text that merely looks like one. A spreadsheet set for
// ';'-separated files splits an unquoted cell at each ';', so each piece
// between them is marked so too. Number cells never go through it, so a
// negative number stays a number.
func csvText(s string) string {
	s = termtext.Escape(s)
	pieces := strings.Split(s, ";")
	marked := false
	for i, p := range pieces {
		rest := strings.TrimLeft(p, " ")
		if rest != "" && strings.IndexByte("=+-@\t\r", rest[0]) >= 0 {
			pieces[i] = p[:len(p)-len(rest)] + "'" + rest
			marked = true
		}
	}
	if !marked {
		return s
	}
	return strings.Join(pieces, ";")
}

func usd(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 9, 64)
}

func csvTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

type textWriter struct {
	w     io.Writer
	n     int
	group *Grouping // nil: no groups
}

func (t *textWriter) Begin() error { return nil }

// width is what the text's tables are fitted to.
func (t *textWriter) width() int {
	if t.group == nil || t.group.Width <= 0 {
		return DefaultWidth
	}
	return t.group.Width
}
func (t *textWriter) End() error { return nil }

func (t *textWriter) Write(data []byte) error {
	if t.n > 0 {
		if _, err := io.WriteString(t.w, "\n"); err != nil {
			return err
		}
	}
	t.n++
	_, err := t.w.Write(data)
	return err
}

func (t *textWriter) Render(s *Session) ([]byte, error) {
	if _, calls := grouped(t.group); !calls {
		return nil, nil // the groups' table only
	}
	var b strings.Builder
	b.Grow(100*len(s.Calls) + 1024)
	active := !s.Policy.Inert()
	fmt.Fprintf(&b, "%s\n", termtext.Escape(s.Path))
	fmt.Fprintf(&b, "  %s", s.Format)
	if s.Version != "" {
		fmt.Fprintf(&b, " %s", termtext.Escape(s.Version))
	}
	fmt.Fprintf(&b, " · session %s", termtext.Escape(s.SessionID))
	switch s.Relation {
	case string(transcript.RelationFork):
		fmt.Fprintf(&b, " · fork of %s", termtext.Escape(s.ParentID))
	case string(transcript.RelationSubagent):
		fmt.Fprintf(&b, " · sub-agent of %s", termtext.Escape(s.ParentID))
	}
	if s.Title != "" {
		fmt.Fprintf(&b, " · \"%s\"", termtext.Escape(s.Title))
	}
	if active {
		fmt.Fprintf(&b, " · policy %s", termtext.Escape(s.Policy.Name))
	}
	b.WriteString("\n")
	table := newRightAligned(len(s.Calls)+1, 80)
	zone, zoneName := t.zone()
	if active {
		table.add([]byte("call\ttime (" + zoneName + ")\tmodel\tprompt\tafter\toutput\tcost\tafter\ttools\tcause\t"))
	} else {
		table.add([]byte("call\ttime (" + zoneName + ")\tmodel\tprompt\toutput\tcost\ttools\tcause\t"))
	}
	var row []byte
	for _, c := range s.Calls {
		if zone != time.UTC && c.Time != nil {
			local := c.Time.In(zone)
			c.Time = &local
		}
		row = callRow(row[:0], &c, active)
		table.add(row)
	}
	// Past the width the model goes first, then the tools, the cause,
	// the time and the output; the call and its cost (and after) stay.
	priority := []int{0, 4, 6, 2, 1, 3, 0, 0, 5, 3}
	if !active {
		priority = []int{0, 4, 6, 2, 3, 0, 5, 3}
	}
	table.fit(t.width(), priority)
	b.Write(table.appendTo(make([]byte, 0, len(table.buf)+len(table.cells)*4)))
	if active {
		writeActions(&b, s)
		writeSpills(&b, s)
	}
	writeByTool(&b, s, active, t.width())
	for _, sub := range s.Subagents {
		st := sub.Totals
		fmt.Fprintf(&b, "  sub-agent %s: %s, %s, cost %s", termtext.Escape(sub.Path), human.Plural(st.APICalls, "API call"),
			human.Plural(st.ToolResults, "tool result"), human.USD(st.CostUSD))
		if active {
			fmt.Fprintf(&b, " → %s", human.USD(st.CostUSDAfter))
		}
		b.WriteString("\n")
	}
	tot := s.Totals
	fmt.Fprintf(&b, "  %s, %s (%s), %s", human.Plural(tot.APICalls, "API call"), human.Plural(tot.ToolResults, "tool result"),
		human.Bytes(tot.ResultBytes), human.Plural(tot.Compactions, "compaction"))
	if n := len(s.Subagents); n > 0 {
		fmt.Fprintf(&b, ", %s included", human.Plural(n, "sub-agent"))
	}
	b.WriteString("\n")
	if tot.CopiedCalls > 0 {
		fmt.Fprintf(&b, "  %s marked copy: responses %s counts, shown here and added to no total\n",
			human.Plural(tot.CopiedCalls, "call"), copiedFrom(s))
	}
	fmt.Fprintf(&b, "  recorded: input %s · cache write %s · cache read %s · output %s\n",
		human.Count(tot.Recorded.Input), human.Count(tot.Recorded.CacheCreation), human.Count(tot.Recorded.CacheRead), human.Count(tot.Recorded.Output))
	if extra := extraModels(s); extra != "" {
		fmt.Fprintf(&b, "  these include usage billed on other models (Claude Code's advisor): %s\n", extra)
	}
	fmt.Fprintf(&b, "  cost: %s", human.USD(tot.CostUSD))
	switch {
	case len(tot.UnpricedModels) > 0:
		fmt.Fprintf(&b, " (no price for %s; priced calls: %s)", unpricedNames(tot.UnpricedModels), human.USD(&tot.PricedCostUSD))
	case tot.CallsNoData == tot.APICalls:
		b.WriteString(" (the log records no usage)")
	case active && tot.CostUSDAfter != nil:
		saved, sign := *tot.CostUSD-*tot.CostUSDAfter, "−"
		if saved < 0 { // replacements longer than their results
			saved, sign = -saved, "+"
		}
		fmt.Fprintf(&b, " → %s under %s (%s%s, %s); prompt tokens %s → %s",
			human.USD(tot.CostUSDAfter), termtext.Escape(s.Policy.Name), sign, human.USD(&saved), human.Change(*tot.CostUSD, *tot.CostUSDAfter),
			human.Count(tot.PromptTokens), human.Count(*tot.PromptTokensAfter))
	}
	b.WriteString("\n")
	if tot.HarnessCostNote != "" {
		fmt.Fprintf(&b, "  Claude Code's own cost: %s, spillway's %s: %s\n", human.USD(tot.HarnessCostUSD), human.USD(&tot.PricedCostUSD),
			termtext.Escape(tot.HarnessCostNote))
	}
	if r := tot.Realized; r != nil {
		b.WriteString(realizedLine(r))
	}
	if active {
		fmt.Fprintf(&b, "  tokens saved are %s (%s); %s\n", s.Tokens.Saved, termtext.Escape(s.Tokens.Calibration.Note), s.Tokens.Assumption)
		b.WriteString(hazardsLine(tot.Hazards))
	}
	if tot.LowerBoundOutputs > 0 {
		fmt.Fprintf(&b, "  ≥ lower bound: the log wrote usage as the response began (%s)\n",
			human.Plural(tot.LowerBoundOutputs, "call"))
	}
	if tot.Warnings > 0 {
		first := s.Warnings[0]
		where := ""
		if first.Line > 0 {
			where = fmt.Sprintf(" at line %d", first.Line)
		}
		fmt.Fprintf(&b, "  %s; the first%s: %s\n", human.Plural(tot.Warnings, "warning"), where, termtext.Escape(first.Message))
	}
	return []byte(b.String()), nil
}

// writeSpills says where the replay's spill files are: written, or only
// planned, under which folder.
func writeSpills(b *strings.Builder, s *Session) {
	sp := s.Spills
	switch {
	case sp.Planned == 0:
	case sp.Written == sp.Planned:
		fmt.Fprintf(b, "  %s written under %s\n", human.Plural(sp.Written, "spill file"), termtext.Escape(sp.Dir))
	case sp.Error != "":
		fmt.Fprintf(b, "  %d of %s written under %s; the first error: %s\n", sp.Written, human.Plural(sp.Planned, "spill file"), termtext.Escape(sp.Dir), termtext.Escape(sp.Error))
	default:
		fmt.Fprintf(b, "  %s planned under %s, not written (--spill-dir writes them)\n", human.Plural(sp.Planned, "spill file"), termtext.Escape(sp.Dir))
	}
}

// copiedFrom names the sessions that count the copies among s's calls.
func copiedFrom(s *Session) string {
	var paths []string
	for _, part := range append([]*Session{s}, s.Subagents...) {
		for _, c := range part.Calls {
			if c.CountedIn != nil && !slices.Contains(paths, *c.CountedIn) {
				paths = append(paths, *c.CountedIn)
			}
		}
	}
	if len(paths) == 1 {
		return termtext.Escape(paths[0])
	}
	return fmt.Sprintf("%d other sessions", len(paths))
}

// extraModels sums, per model, the usage that counted calls billed on
// models other than their own.
func extraModels(s *Session) string {
	var models []string
	costs := map[string]*float64{}
	unpriced := map[string]bool{}
	for _, c := range s.Calls {
		if c.CountedIn != nil {
			continue
		}
		for _, x := range c.Extra {
			if _, seen := costs[x.Model]; !seen && !unpriced[x.Model] {
				models = append(models, x.Model)
			}
			if x.CostUSD == nil {
				unpriced[x.Model] = true
				continue
			}
			costs[x.Model] = addPtr(costs[x.Model], *x.CostUSD)
		}
	}
	parts := make([]string, len(models))
	for i, m := range models {
		cost := costs[m]
		if unpriced[m] {
			cost = nil
		}
		parts[i] = termtext.Escape(m) + " " + human.USD(cost)
	}
	return strings.Join(parts, ", ")
}

// writeActions lists the results the policy changed.
func writeActions(b *strings.Builder, s *Session) {
	var acted []Result
	for _, r := range s.Results {
		if r.Action != "keep" && r.Action != "exclude" {
			acted = append(acted, r)
		}
	}
	if len(acted) == 0 {
		fmt.Fprintf(b, "  %s changes no result\n", termtext.Escape(s.Policy.Name))
		return
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "result\tcall\ttool\taction\tbytes\tafter\ttokens saved\twhy\t")
	for i, r := range s.Results {
		if r.Action == "keep" || r.Action == "exclude" {
			continue
		}
		action := r.Action
		if r.Stale {
			action += " (stale)"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", i, r.CallIndex, termtext.Escape(r.Tool), action,
			human.Count(int64(r.Bytes)), human.Count(r.BytesAfter), human.Count(r.SavedTokens), termtext.Escape(r.Reason))
	}
	tw.Flush()
	// Each hazard goes under its result's row, outside the table's columns.
	lines := strings.SplitAfter(table.String(), "\n")
	b.WriteString(lines[0])
	for k, r := range acted {
		b.WriteString(lines[k+1])
		if r.Hazard != nil {
			b.WriteString(hazardLine(r.Hazard, len(s.Calls)))
		}
	}
}

// hazardLine says what a hazard is and where its evidence is.
func hazardLine(z *Hazard, calls int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "      ↳ hazard %s: %s", z.Kind, termtext.Escape(z.Why))
	if z.Evidence != "" {
		fmt.Fprintf(&b, "; call %d (%s) wrote “%s”", z.CallIndex, termtext.Escape(z.From), termtext.Escape(z.Evidence))
	} else if z.CallIndex < calls {
		fmt.Fprintf(&b, "; call %d got the repeat's stub", z.CallIndex)
	} else {
		b.WriteString("; no later call got the stub")
	}
	if z.Retrievable && z.ExtraTokens != nil {
		fmt.Fprintf(&b, "; retrievable from the spill file, one more call of about %s tokens", human.Count(*z.ExtraTokens))
	}
	b.WriteString("\n")
	return b.String()
}

// hazardsLine sums a session's hazards.
func hazardsLine(h replay.HazardCounts) string {
	return fmt.Sprintf("  hazards: %d used_hidden (%d retrievable from a spill file), %d suppressed_unseen, %d stale\n",
		h.UsedHidden, h.Retrievable, h.SuppressedUnseen, h.Stale)
}

// callRow appends one call's line of the text table to row.
func callRow(row []byte, c *Call, active bool) []byte {
	const none = "–"
	cell := func(row []byte) []byte { return append(row, '\t') }
	row = cell(strconv.AppendInt(row, int64(c.Index), 10))
	if c.Time == nil {
		row = cell(append(row, none...))
	} else {
		row = cell(c.Time.AppendFormat(row, time.DateTime))
	}
	row = cell(append(row, termtext.Escape(c.Model)...))
	if c.Recorded == nil {
		row = cell(append(row, none...))
		if active {
			row = cell(append(row, none...))
		}
		row = cell(append(row, none...))
		row = cell(append(row, none...))
		if active {
			row = cell(append(row, none...))
		}
	} else {
		row = cell(human.AppendCount(row, *c.PromptTokens))
		if active {
			row = cell(human.AppendCount(row, *c.PromptTokensAfter))
		}
		if c.OutputLowerBound {
			row = append(row, "≥"...)
		}
		row = cell(human.AppendCount(row, *c.OutputTokens))
		if c.CountedIn != nil {
			row = append(row, "copy "...) // counted in another session
		}
		row = cell(human.AppendUSD(row, c.CostUSD))
		if active {
			row = cell(human.AppendUSD(row, c.CostUSDAfter))
		}
	}
	row = cell(strconv.AppendInt(row, int64(c.ToolCalls), 10))
	row = cell(appendCause(row, c))
	return append(row, '\n')
}

// unpricedNames lists models without a price for the text report; calls
// whose log names no model are listed as such, not as an empty name.
func unpricedNames(models []string) string {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = termtext.Escape(m)
		if m == "" {
			names[i] = "calls the log names no model for"
		}
	}
	return strings.Join(names, ", ")
}

// realizedLine says what spillway's hook cut from the session when it ran
// in it, beside what the policy above would.
func realizedLine(r *RealizedTotals) string {
	saved := ""
	switch {
	case r.SavedUSD == nil:
	case *r.SavedUSD < 0:
		more := -*r.SavedUSD
		saved = fmt.Sprintf(", about %s more paid", human.USD(&more))
	default:
		saved = fmt.Sprintf(", about %s not paid", human.USD(r.SavedUSD))
	}
	return fmt.Sprintf("  realized by spillway's hook (%s): %s shaped, %s → %s, tokens %s → %s (%s)%s\n",
		termtext.Escape(strings.Join(r.Policies, ", ")), human.Plural(r.Results, "result"), human.Bytes(r.Bytes), human.Bytes(r.BytesAfter),
		human.Count(r.Tokens), human.Count(r.TokensAfter), human.Less(r.Tokens-r.TokensAfter, human.Count), saved)
}

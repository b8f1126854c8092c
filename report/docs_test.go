package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go/format"
)

// formatsDoc is where the report formats are described.
var formatsDoc = filepath.Join("..", "docs", "report-formats.md")

// docs reads a file of docs/.
func docs(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestFormatsDoc checks the generated blocks of docs/report-formats.md
// against the code: each Parquet table's columns, in order, with the type
// and nullability the writer gives them, and each CSV's header. The
// meanings of the Parquet columns are written by hand and kept; a column
// without one fails. -update rewrites the blocks.
func TestFormatsDoc(t *testing.T) {
	data, err := os.ReadFile(formatsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	blocks := []struct {
		name string
		make func(t *testing.T, old string) string
	}{
		{"sessions.parquet", parquetColumns[SessionRow]},
		{"calls.parquet", parquetColumns[CallRow]},
		{"results.parquet", parquetColumns[ResultRow]},
		{"report.csv", csvColumns(func(w io.Writer) error {
			cw, _ := NewWriter("csv", w, "")
			return cw.Begin()
		})},
		{"groups.csv", csvColumns(func(w io.Writer) error {
			cw, _ := NewWriter("csv", w, "")
			cw.(*csvWriter).group = &Grouping{By: "day"}
			return cw.Begin()
		})},
		{"sweep.csv", csvColumns(func(w io.Writer) error { return (&SweepDoc{}).Write(w, "csv", 0) })},
		{"sweep-dedupe.csv", csvColumns(func(w io.Writer) error { return (&DedupeDoc{}).Write(w, "csv", 0) })},
	}
	for _, b := range blocks {
		re := regexp.MustCompile("(?s)(<!-- begin " + regexp.QuoteMeta(b.name) + ":[^\n]*-->\n)(.*?)(<!-- end " + regexp.QuoteMeta(b.name) + " -->)")
		m := re.FindStringSubmatchIndex(doc)
		if m == nil {
			t.Errorf("%s has no generated block for %s", formatsDoc, b.name)
			continue
		}
		old := doc[m[4]:m[5]]
		gen := b.make(t, old)
		if gen == old {
			continue
		}
		if updating() {
			doc = doc[:m[4]] + gen + doc[m[5]:]
			continue
		}
		t.Errorf("%s: %s differs from the code (-doc +code); go test ./report -run TestFormatsDoc -update rewrites it:\n%s",
			formatsDoc, b.name, cmp.Diff(old, gen))
	}
	if updating() && doc != string(data) {
		if err := os.WriteFile(formatsDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// parquetColumns is the table of R's Parquet columns: name, type as an
// engine reads it, and the meaning old gives the column.
func parquetColumns[R any](t *testing.T, old string) string {
	meaning := map[string]string{}
	for _, line := range strings.Split(old, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) == 3 && strings.HasPrefix(cells[0], "| `") {
			meaning[strings.Trim(cells[0], "| `")] = strings.TrimSuffix(cells[2], " |")
		}
	}
	tb, err := newPQTable[R](io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| column | type | meaning |\n|---|---|---|\n")
	for _, e := range tb.schema()[1:] {
		typ, _ := e.Type.Get()
		name := map[format.Type]string{format.Int64: "int64", format.Boolean: "boolean", format.ByteArray: "string"}[typ]
		if _, ok := e.LogicalType.Value.(*format.TimestampType); ok {
			name = "timestamp"
		}
		if rep, _ := e.RepetitionType.Get(); rep == format.Optional {
			name += ", nullable"
		}
		if meaning[e.Name] == "" {
			t.Errorf("%s: column %s has no meaning", formatsDoc, e.Name)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", e.Name, name, meaning[e.Name])
	}
	return b.String()
}

// csvColumns lists the header write writes, as code spans in lines of at
// most 100 columns.
func csvColumns(write func(io.Writer) error) func(*testing.T, string) string {
	return func(t *testing.T, _ string) string {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
		header, err := csv.NewReader(&buf).Read()
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		line := 0
		for i, name := range header {
			cell := "`" + name + "`"
			if i < len(header)-1 {
				cell += ","
			}
			switch {
			case i == 0:
			case line+1+len(cell) > 100:
				b.WriteByte('\n')
				line = 0
			default:
				b.WriteByte(' ')
				line++
			}
			b.WriteString(cell)
			line += len(cell)
		}
		return b.String() + "\n"
	}
}

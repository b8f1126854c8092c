package report

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The Parquet files are written with parquet-go's format, Thrift and codec
// packages rather than its top-level package, which links an HTTP stack
// (through its Brotli codec) into any program that imports it, and
// spillway links no code that can open a connection. The files are the
// simplest Parquet there is: flat columns, one PLAIN-encoded data page per
// column and row group, Snappy-compressed, with the logical types that
// DuckDB, Spark, ClickHouse and BigQuery read as they are.

// pqTable writes rows of type R, a struct whose fields are int64, bool,
// string or time.Time (each, as a pointer, nullable), to one Parquet file.
// A field's column is named by its `json` tag. Rows are buffered until
// flush, which writes them as one row group: memory is that of one row
// group, however many rows the file gets.
type pqTable[R any] struct {
	w       *bufio.Writer
	offset  int64
	cols    []pqColumn
	rows    int
	meta    format.FileMetaData
	scratch []byte
	codec   snappy.Codec
}

type pqKind int

const (
	pqInt64 pqKind = iota
	pqBool
	pqString
	pqTime
)

// pqColumn is one column's schema and the values of the row group being
// buffered.
type pqColumn struct {
	name     string
	field    int
	kind     pqKind
	optional bool
	present  []bool // per row, for an optional column
	ints     []int64
	bools    []bool
	strs     []string
}

// newPQTable starts a Parquet file on w with R's columns.
func newPQTable[R any](w io.Writer) (*pqTable[R], error) {
	t := &pqTable[R]{w: bufio.NewWriterSize(w, 1<<20)}
	typ := reflect.TypeFor[R]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		c := pqColumn{name: name, field: i}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			c.optional, ft = true, ft.Elem()
		}
		switch {
		case ft == reflect.TypeFor[time.Time]():
			c.kind = pqTime
		case ft.Kind() == reflect.Int64:
			c.kind = pqInt64
		case ft.Kind() == reflect.Bool:
			c.kind = pqBool
		case ft.Kind() == reflect.String:
			c.kind = pqString
		default:
			return nil, fmt.Errorf("parquet column %s: type %s is not written", name, f.Type)
		}
		t.cols = append(t.cols, c)
	}
	t.meta = format.FileMetaData{Version: 1, CreatedBy: "spillway", Schema: t.schema()}
	_, err := t.write([]byte("PAR1"))
	return t, err
}

// schema is the file's schema: the root, then one element per column.
func (t *pqTable[R]) schema() []format.SchemaElement {
	out := []format.SchemaElement{{Name: "schema", NumChildren: thrift.New(int32(len(t.cols)))}}
	for _, c := range t.cols {
		e := format.SchemaElement{Name: c.name, RepetitionType: thrift.New(format.Required)}
		if c.optional {
			e.RepetitionType = thrift.New(format.Optional)
		}
		switch c.kind {
		case pqInt64:
			e.Type = thrift.New(format.Int64)
		case pqBool:
			e.Type = thrift.New(format.Boolean)
		case pqString:
			e.Type = thrift.New(format.ByteArray)
			e.ConvertedType = thrift.New(deprecated.UTF8)
			e.LogicalType = format.LogicalType{Value: &format.StringType{}}
		case pqTime:
			e.Type = thrift.New(format.Int64)
			e.ConvertedType = thrift.New(deprecated.TimestampMicros)
			e.LogicalType = format.LogicalType{Value: &format.TimestampType{
				IsAdjustedToUTC: true, Unit: format.TimeUnit{Value: &format.MicroSeconds{}}}}
		}
		out = append(out, e)
	}
	return out
}

func (t *pqTable[R]) write(b []byte) (int, error) {
	n, err := t.w.Write(b)
	t.offset += int64(n)
	return n, err
}

// add buffers a row.
func (t *pqTable[R]) add(r *R) {
	v := reflect.ValueOf(r).Elem()
	for i := range t.cols {
		c := &t.cols[i]
		f := v.Field(c.field)
		if c.optional {
			present := !f.IsNil()
			c.present = append(c.present, present)
			if !present {
				continue
			}
			f = f.Elem()
		}
		switch c.kind {
		case pqInt64:
			c.ints = append(c.ints, f.Int())
		case pqBool:
			c.bools = append(c.bools, f.Bool())
		case pqString:
			c.strs = append(c.strs, f.String())
		case pqTime:
			c.ints = append(c.ints, f.Interface().(time.Time).UnixMicro())
		}
	}
	t.rows++
}

// flush writes the buffered rows as a row group.
func (t *pqTable[R]) flush() error {
	if t.rows == 0 {
		return nil
	}
	rg := format.RowGroup{NumRows: int64(t.rows), FileOffset: t.offset, Ordinal: int16(min(len(t.meta.RowGroups), math.MaxInt16))}
	for i := range t.cols {
		c := &t.cols[i]
		chunk, err := t.writeColumn(i)
		if err != nil {
			return err
		}
		rg.TotalByteSize += chunk.MetaData.TotalUncompressedSize
		rg.TotalCompressedSize += chunk.MetaData.TotalCompressedSize
		rg.Columns = append(rg.Columns, chunk)
		c.present, c.ints, c.bools, c.strs = c.present[:0], c.ints[:0], c.bools[:0], c.strs[:0]
	}
	t.meta.RowGroups = append(t.meta.RowGroups, rg)
	t.meta.NumRows += int64(t.rows)
	t.rows = 0
	return nil
}

// writeColumn writes c's buffered values as one data page.
func (t *pqTable[R]) writeColumn(i int) (format.ColumnChunk, error) {
	c := &t.cols[i]
	body := t.scratch[:0]
	if c.optional {
		// Definition levels, bit width 1, in the RLE hybrid encoding
		// behind their byte length.
		at := len(body)
		body = append(body, 0, 0, 0, 0)
		body = appendLevels(body, c.present)
		binary.LittleEndian.PutUint32(body[at:], uint32(len(body)-at-4))
	}
	switch c.kind {
	case pqInt64, pqTime:
		for _, v := range c.ints {
			body = binary.LittleEndian.AppendUint64(body, uint64(v))
		}
	case pqBool:
		var b byte
		for i, v := range c.bools {
			if v {
				b |= 1 << (i % 8)
			}
			if i%8 == 7 {
				body, b = append(body, b), 0
			}
		}
		if len(c.bools)%8 != 0 {
			body = append(body, b)
		}
	case pqString:
		for _, s := range c.strs {
			body = binary.LittleEndian.AppendUint32(body, uint32(len(s)))
			body = append(body, s...)
		}
	}
	t.scratch = body
	// Statistics hold the null count alone, which readers trust to skip
	// reading ("IS NULL" in DuckDB answers from it): Thrift would write
	// 0 where it is left out.
	var stats format.Statistics
	for _, present := range c.present {
		if !present {
			stats.NullCount++
		}
	}
	compressed, err := t.codec.Encode(nil, body)
	if err != nil {
		return format.ColumnChunk{}, err
	}
	if len(body) > math.MaxInt32 || len(compressed) > math.MaxInt32 {
		return format.ColumnChunk{}, fmt.Errorf("parquet column %s: a page of %d bytes is too large", c.name, len(body))
	}
	header, err := thrift.Marshal(new(thrift.CompactProtocol), &format.PageHeader{
		Type: format.DataPage, UncompressedPageSize: int32(len(body)), CompressedPageSize: int32(len(compressed)),
		DataPageHeader: thrift.New(format.DataPageHeader{
			NumValues: int32(t.rows), Encoding: format.Plain,
			DefinitionLevelEncoding: format.RLE, RepetitionLevelEncoding: format.RLE,
			Statistics: stats,
		}),
	})
	if err != nil {
		return format.ColumnChunk{}, err
	}
	start := t.offset
	if _, err := t.write(header); err != nil {
		return format.ColumnChunk{}, err
	}
	if _, err := t.write(compressed); err != nil {
		return format.ColumnChunk{}, err
	}
	typ, _ := t.meta.Schema[1+i].Type.Get()
	return format.ColumnChunk{FileOffset: start, MetaData: format.ColumnMetaData{
		Type: typ, Encoding: []format.Encoding{format.Plain, format.RLE}, PathInSchema: []string{c.name},
		Codec: format.Snappy, NumValues: int64(t.rows),
		TotalUncompressedSize: int64(len(header) + len(body)), TotalCompressedSize: t.offset - start,
		DataPageOffset: start, Statistics: stats,
	}}, nil
}

// appendLevels appends levels of bit width 1 as RLE runs: a run's header
// is its length shifted left once, then its value in one byte.
func appendLevels(b []byte, present []bool) []byte {
	for i := 0; i < len(present); {
		j := i + 1
		for j < len(present) && present[j] == present[i] {
			j++
		}
		b = binary.AppendUvarint(b, uint64(j-i)<<1)
		if present[i] {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
		i = j
	}
	return b
}

// close writes what is buffered and the footer.
func (t *pqTable[R]) close() error {
	if err := t.flush(); err != nil {
		return err
	}
	footer, err := thrift.Marshal(new(thrift.CompactProtocol), &t.meta)
	if err != nil {
		return err
	}
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	footer = append(footer, "PAR1"...)
	if _, err := t.write(footer); err != nil {
		return err
	}
	return t.w.Flush()
}

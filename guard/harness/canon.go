package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// CanonicalJSON writes raw as serde_json prints a Value: compact, object
// keys sorted, strings escaped as serdeString does. Invalid JSON is
// returned as is.
func CanonicalJSON(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(x.String())
	case string:
		b.WriteString(serdeString(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(serdeString(k))
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	}
}

// InputField returns a string field of a tool call's JSON input.
func InputField(raw []byte, names ...string) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, n := range names {
		if s, ok := m[n].(string); ok {
			return s
		}
	}
	return ""
}

// InputNumber returns a number field of a tool call's JSON input.
func InputNumber(raw []byte, name string) (float64, bool) {
	if !bytes.Contains(raw, []byte(name)) {
		return 0, false // most inputs: not decoded
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return 0, false
	}
	n, ok := m[name].(float64)
	return n, ok
}

// ReadKey identifies a Claude Code Read by path and the range it asked
// for; an offset of 0 or 1 is the start of the file, like none.
func ReadKey(raw []byte) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	p, _ := m["file_path"].(string)
	if p == "" {
		return ""
	}
	offset, _ := m["offset"].(float64)
	if offset <= 1 {
		offset = 0
	}
	limit, _ := m["limit"].(float64)
	return fmt.Sprintf("%s\x00%g\x00%g", p, offset, limit)
}

// WholeReadKey is the ReadKey of a Read of all of path.
func WholeReadKey(path string) string { return fmt.Sprintf("%s\x00%g\x00%g", path, 0.0, 0.0) }

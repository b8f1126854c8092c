package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// CanonicalJSON writes raw as serde_json prints a Value: compact, object
// keys sorted, strings escaped as serdeString does. Invalid JSON is
// returned as is.
func CanonicalJSON(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	// Most tool inputs have no escape in them: their strings are written
	// as they are, and the value is walked in place. Decoding into maps,
	// as below, took 2 µs a call and most of the time turning repeat
	// suppression on took on a list of 2,000 sessions.
	var c canonical
	if end, ok := c.value(raw, skipSpace(raw, 0)); ok && skipSpace(raw, end) == len(raw) {
		return string(c.out)
	}
	return canonicalSlow(raw)
}

// canonical writes a JSON value with no escape in its strings and no key
// twice in an object canonically; any other gives up (ok false), for
// canonicalSlow to write.
type canonical struct {
	out   []byte
	depth int
}

// maxCanonicalDepth bounds the nesting walked, as encoding/json bounds
// what it decodes: a log's line is untrusted.
const maxCanonicalDepth = 10000

// value writes the value at raw[i:] and returns where it ends.
func (c *canonical) value(raw []byte, i int) (end int, ok bool) {
	if i >= len(raw) || c.depth >= maxCanonicalDepth {
		return 0, false
	}
	c.depth++
	defer func() { c.depth-- }()
	switch b := raw[i]; {
	case b == '{':
		return c.object(raw, i)
	case b == '[':
		c.out = append(c.out, '[')
		i = skipSpace(raw, i+1)
		if i < len(raw) && raw[i] == ']' {
			c.out = append(c.out, ']')
			return i + 1, true
		}
		for {
			if i, ok = c.value(raw, i); !ok {
				return 0, false
			}
			if i = skipSpace(raw, i); i >= len(raw) {
				return 0, false
			}
			if raw[i] == ']' {
				c.out = append(c.out, ']')
				return i + 1, true
			}
			if raw[i] != ',' {
				return 0, false
			}
			c.out = append(c.out, ',')
			i = skipSpace(raw, i+1)
		}
	case b == '"':
		end, ok := plainString(raw, i)
		if !ok {
			return 0, false
		}
		c.out = append(c.out, raw[i:end]...)
		return end, true
	case b == '-' || b >= '0' && b <= '9':
		end := numberEnd(raw, i)
		c.out = append(c.out, raw[i:end]...)
		return end, end > i
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(raw[i:], []byte(lit)) {
			c.out = append(c.out, lit...)
			return i + len(lit), true
		}
	}
	return 0, false
}

// object writes the object at raw[i:], its keys sorted.
func (c *canonical) object(raw []byte, i int) (end int, ok bool) {
	type member struct{ key, value string }
	var members []member
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		c.out = append(c.out, "{}"...)
		return i + 1, true
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return 0, false
		}
		keyEnd, ok := plainString(raw, i)
		if !ok {
			return 0, false
		}
		key := string(raw[i+1 : keyEnd-1])
		if i = skipSpace(raw, keyEnd); i >= len(raw) || raw[i] != ':' {
			return 0, false
		}
		at := len(c.out)
		if i, ok = c.value(raw, skipSpace(raw, i+1)); !ok {
			return 0, false
		}
		members = append(members, member{key, string(c.out[at:])})
		c.out = c.out[:at]
		if i = skipSpace(raw, i); i >= len(raw) {
			return 0, false
		}
		if raw[i] == '}' {
			break
		}
		if raw[i] != ',' {
			return 0, false
		}
		i = skipSpace(raw, i+1)
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	c.out = append(c.out, '{')
	for k, m := range members {
		if k > 0 {
			if m.key == members[k-1].key {
				return 0, false // the last one counts: decoding says which
			}
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, '"')
		c.out = append(c.out, m.key...)
		c.out = append(c.out, '"', ':')
		c.out = append(c.out, m.value...)
	}
	c.out = append(c.out, '}')
	return i + 1, true
}

// plainString returns the end of the string opening at raw[i], ok when
// it has no escape or control character and is UTF-8: serdeString writes
// such a string as it is.
func plainString(raw []byte, i int) (end int, ok bool) {
	for j := i + 1; j < len(raw); j++ {
		switch c := raw[j]; {
		case c == '"':
			return j + 1, utf8.Valid(raw[i+1 : j])
		case c == '\\' || c < 0x20:
			return 0, false
		}
	}
	return 0, false
}

// numberEnd returns the end of the JSON number at raw[i:], or i when it
// is not one.
func numberEnd(raw []byte, i int) int {
	j := i
	if j < len(raw) && raw[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
			k++
		}
		return k - j
	}
	switch n := digits(); {
	case n == 0:
		return i
	case raw[j] == '0' && n > 1:
		return i // a leading zero
	default:
		j += n
	}
	if j < len(raw) && raw[j] == '.' {
		j++
		n := digits()
		if n == 0 {
			return i
		}
		j += n
	}
	if j < len(raw) && (raw[j] == 'e' || raw[j] == 'E') {
		j++
		if j < len(raw) && (raw[j] == '+' || raw[j] == '-') {
			j++
		}
		n := digits()
		if n == 0 {
			return i
		}
		j += n
	}
	return j
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// canonicalSlow is CanonicalJSON for any input: decoded, then written.
func canonicalSlow(raw []byte) string {
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

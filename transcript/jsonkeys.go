package transcript

import (
	"bytes"

	"github.com/valyala/fastjson"
)

// The agents write their logs from JavaScript or Rust, and read them back
// with parsers that keep the last of repeated object keys (JSON.parse,
// serde_json into a map). fastjson's Get returns the first, so the readers
// look keys up here instead: the last value wins, and a line with a
// repeated key is warned about once.

// maxTokens bounds a token count: no API call has recorded anywhere near
// 10^12 tokens of one kind. A count above it is an error in the log, not
// used, so that sums of counts stay far from int64's range: 2 million
// calls at this bound per field still total under 2^63.
const maxTokens = 1_000_000_000_000

// lastOf returns v's value for key, the last where key is repeated, and
// sets *dup when it is. v that is not an object has no keys.
func lastOf(v *fastjson.Value, key string, dup *bool) *fastjson.Value {
	o := v.GetObject()
	if o == nil {
		return nil
	}
	var found *fastjson.Value
	o.Visit(func(k []byte, val *fastjson.Value) {
		if string(k) == key {
			if found != nil {
				*dup = true
			}
			found = val
		}
	})
	return found
}

// gather visits o's keys once; field says where a key's value goes, nil to
// skip it. The last of repeated keys wins, and *dup is set.
func gather(o *fastjson.Object, dup *bool, field func(key []byte) **fastjson.Value) {
	o.Visit(func(key []byte, v *fastjson.Value) {
		if f := field(key); f != nil {
			if *f != nil {
				*dup = true
			}
			*f = v
		}
	})
}

// repeatedKeys warns, once per line, that a line repeats a key the reader
// uses, when dup says so.
func (b *builder) repeatedKeys(line int, dup bool) {
	if dup && line != b.dupLine {
		b.dupLine = line
		b.warnf(line, "an object repeats a key: its last value is kept")
	}
}

// dedupeKeys leaves in every object of v only the last of repeated keys,
// and reports whether there were any. The readers without a key-by-key
// lookup of their own run it on each record before reading it. It asks no
// value its type: see stringSize.
func dedupeKeys(v *fastjson.Value, keys *[][]byte) (repeated bool) {
	if a := v.GetArray(); a != nil {
		for _, e := range a {
			repeated = dedupeKeys(e, keys) || repeated
		}
		return repeated
	}
	o := v.GetObject()
	if o == nil {
		return false
	}
	start := len(*keys)
	var dups [][]byte
	o.Visit(func(k []byte, val *fastjson.Value) {
		for _, seen := range (*keys)[start:] {
			if bytes.Equal(seen, k) {
				dups = append(dups, k)
				break
			}
		}
		*keys = append(*keys, k)
	})
	*keys = (*keys)[:start]
	for _, k := range dups {
		o.Del(string(k)) // the first of them: each Del leaves the later ones
	}
	o.Visit(func(_ []byte, val *fastjson.Value) {
		repeated = dedupeKeys(val, keys) || repeated
	})
	return repeated || len(dups) > 0
}

// dedupe runs dedupeKeys on the record v of line, warning if it repeats
// a key.
func (b *builder) dedupe(v *fastjson.Value, line int) {
	b.repeatedKeys(line, dedupeKeys(v, &b.keys))
}

// tokenCount reads a token count: absent or null is 0, and so, with a
// warning, is anything but an integer from 0 to maxTokens.
// The count is named prefix+key in warnings.
func (b *builder) tokenCount(v *fastjson.Value, line int, prefix, key string) int64 {
	if v == nil || v.Type() == fastjson.TypeNull {
		return 0
	}
	n, err := v.Int64()
	switch {
	case err != nil || n < 0:
		b.warnf(line, "%s%s is not a non-negative integer: not counted", prefix, key)
		return 0
	case n > maxTokens:
		b.warnf(line, "%s%s is %d, above any real count: not counted", prefix, key, n)
		return 0
	}
	return n
}

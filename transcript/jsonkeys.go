package transcript

// The agents write their logs from JavaScript or Rust, and read them back
// with parsers that keep the last of repeated object keys (JSON.parse,
// serde_json into a map): so do the readers, and a line with a repeated
// key is warned about once.

// maxTokens bounds a token count: no API call has recorded anywhere near
// 10^12 tokens of one kind. A count above it is an error in the log, not
// used, so that sums of counts stay far from int64's range: 2 million
// calls at this bound per field still total under 2^63.
const maxTokens = 1_000_000_000_000

// repeatedKeys warns, once per line, that a line repeats a key the reader
// uses, when dup says so.
func (b *builder) repeatedKeys(line int, dup bool) {
	if dup && line != b.dupLine {
		b.dupLine = line
		b.warnf(line, "an object repeats a key: its last value is kept")
	}
}

// tokenCount is a count as read: null or absent is 0, and so, with a
// warning, is anything but an integer from 0 to maxTokens. The count is
// named prefix+key in warnings.
func (b *builder) tokenCount(c count, line int, prefix, key string) int64 {
	switch c.state {
	case countBad:
		b.warnf(line, "%s%s is not a non-negative integer: not counted", prefix, key)
		return 0
	case countHigh:
		b.warnf(line, "%s%s is %d, above any real count: not counted", prefix, key, c.n)
		return 0
	}
	return c.n
}

package report

import (
	"fmt"
	"strconv"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// Count formats a token count with thousands separators: 1234567 → "1,234,567".
func Count(n int64) string { return human.Group(n) }

// USD formats dollars to the micro-dollar, or "unknown" for nil.
func USD(v *float64) string { return string(appendUSD(nil, v)) }

func appendUSD(dst []byte, v *float64) []byte {
	if v == nil {
		return append(dst, "unknown"...)
	}
	return strconv.AppendFloat(append(dst, '$'), *v, 'f', 6, 64)
}

// Bytes formats a size in binary units: 1536 → "1.5 KiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Clean makes untrusted text safe for a terminal, on one line.
func Clean(s string) string { return termtext.Escape(s) }

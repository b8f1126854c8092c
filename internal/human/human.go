// Package human writes numbers, sizes, money and times for people, the same
// way in every front end, and reads sizes people write.
package human

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Count writes n with comma thousands separators: 1234567 → "1,234,567",
// as Java's %,d does in an English locale.
func Count(n int64) string { return string(AppendCount(nil, n)) }

// AppendCount appends n to dst as Count formats it.
func AppendCount(dst []byte, n int64) []byte {
	u := uint64(n)
	if n < 0 {
		dst = append(dst, '-')
		u = -u
	}
	var buf [20]byte
	digits := strconv.AppendUint(buf[:0], u, 10)
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}

// Compact writes a token count in at most 6 characters (a sign aside):
// 950, 31.9k, 1.24M, 124.0M, 4.74B.
func Compact(n int64) string {
	if n < 0 {
		return "-" + compact(uint64(-n)) // math.MinInt64 too: -n wraps to itself
	}
	return compact(uint64(n))
}

func compact(n uint64) string {
	if n < 10_000 {
		return Count(int64(n))
	}
	v := float64(n) / 1000
	if v < 999.95 {
		return fmt.Sprintf("%.1fk", v)
	}
	for _, unit := range []string{"M", "B", "T", "P"} {
		switch v /= 1000; {
		case v < 99.995:
			return fmt.Sprintf("%.2f%s", v, unit)
		case v < 999.95:
			return fmt.Sprintf("%.1f%s", v, unit)
		}
	}
	return fmt.Sprintf("%.2fE", v/1000) // at most 18.45E, past int64's 9.22E
}

// USD writes dollars to the micro-dollar, or "unknown" for nil.
func USD(v *float64) string { return string(AppendUSD(nil, v)) }

// AppendUSD appends v to dst as USD formats it.
func AppendUSD(dst []byte, v *float64) []byte {
	if v == nil {
		return append(dst, "unknown"...)
	}
	var buf [32]byte
	digits := strconv.AppendFloat(buf[:0], math.Abs(*v), 'f', 6, 64)
	if *v < 0 && string(digits) != "0.000000" { // what rounds to nothing has no sign
		dst = append(dst, '-')
	}
	return append(append(dst, '$'), digits...)
}

// Money writes dollars compactly: $0.0722, $3.14, $1,203; "?" when unknown.
func Money(v *float64) string {
	if v == nil {
		return "?"
	}
	switch x := *v; {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "?"
	case x < 0:
		neg := -x
		if abs := Money(&neg); abs != "$0.0000" { // what rounds to nothing has no sign
			return "-" + abs
		}
		return "$0.0000"
	case x < 1:
		return fmt.Sprintf("$%.4f", x)
	case x < 1000:
		return fmt.Sprintf("$%.2f", x)
	case x < 1e15: // dollars that count to the unit in an int64
		return "$" + Count(int64(x+0.5))
	default:
		return fmt.Sprintf("$%.3g", x)
	}
}

// MoneyLike writes v to the cents Money writes like to, so that the
// figures of one line, written like its largest, round alike: $12.11 →
// $11.92, saved $0.19, not $0.1827. A figure that would show as zero but
// is not shows as under a cent; one of a thousand dollars or more as
// Money writes it.
func MoneyLike(v *float64, like float64) string {
	if v == nil || like < 1 || math.Abs(*v) >= 1000 {
		return Money(v)
	}
	if x := *v; x < 0 {
		neg := -x
		return "-" + MoneyLike(&neg, like)
	}
	if x := *v; x != 0 && x < 0.005 {
		return "<$0.01"
	}
	return fmt.Sprintf("$%.2f", *v)
}

// Change writes how far after is below before, as a share of before,
// with its sign: "−36.2%" less, "+0.4%" more (a policy that made the
// prompt longer), "0.0%" where it rounds to no change, "0%" where before
// is nothing.
func Change(before, after float64) string {
	if before <= 0 {
		return "0%"
	}
	share := fmt.Sprintf("%.1f%%", 100*math.Abs(after-before)/before)
	switch {
	case share == "0.0%":
		return share
	case after > before:
		return "+" + share
	}
	return "−" + share
}

// Less writes n taken out, as f writes it, with its sign: "−31.9k" for a
// saving, "+1.2k" for a negative one, "0" for none.
func Less(n int64, f func(int64) string) string {
	switch {
	case n < 0:
		return "+" + f(-n)
	case n == 0:
		return f(0)
	}
	return "−" + f(n)
}

// Bytes writes a size in binary units: 1536 → "1.5 KiB".
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

// ShortBytes writes a size in at most 6 characters, in K of 1,024 bytes
// as the ceilings beside it are: 812B, 69.0K, 1.2M.
func ShortBytes(n int64) string {
	const k, m = 1 << 10, 1 << 20
	switch {
	case n < k:
		return fmt.Sprintf("%dB", n)
	case math.Round(float64(n)*10/k) < 10000: // 1000.0K would take 7
		return fmt.Sprintf("%.1fK", float64(n)/k)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/m)
	}
}

// ParseSize reads a size such as "24KiB", "80000", "50kB" or "1.5MiB"
// (binary KiB/MiB, decimal kB/MB, plain numbers as given).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"kB", 1000}, {"KB", 1000}, {"MB", 1_000_000}, {"GB", 1_000_000_000}, {"K", 1000}, {"k", 1000}, {"M", 1_000_000}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	if !grouped(t) {
		return 0, fmt.Errorf("invalid size %q: commas and underscores go between groups of three digits (examples: 24KiB, 80,000, 50kB)", s)
	}
	t = strings.ReplaceAll(t, "_", "")
	t = strings.ReplaceAll(t, ",", "")
	// Ceilings beyond 2^53 bytes mean nothing and would overflow on the
	// way; they are refused rather than wrapped to "no ceiling".
	const most = 1 << 53
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && n >= 0 {
		if n > most/mult {
			return 0, fmt.Errorf("size %q is too large (at most 2^53 bytes)", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0, fmt.Errorf("invalid size %q (examples: 24KiB, 80000, 50kB)", s)
	}
	if f*float64(mult) > most {
		return 0, fmt.Errorf("size %q is too large (at most 2^53 bytes)", s)
	}
	n := int64(f * float64(mult))
	if n == 0 && f != 0 {
		return 0, fmt.Errorf("size %q is less than a byte (0 is none)", s)
	}
	return n, nil
}

// grouped tells whether the separators of t's whole part, if any, part
// groups of three digits: "80,000" and "1_048_576", not "1,5" (a decimal
// comma) nor ",,8".
func grouped(t string) bool {
	whole, frac, _ := strings.Cut(t, ".")
	groups := strings.Split(strings.ReplaceAll(whole, "_", ","), ",")
	if len(groups) == 1 {
		return !strings.ContainsAny(frac, ",_")
	}
	if n := len(groups[0]); n < 1 || n > 3 || strings.ContainsAny(frac, ",_") {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// Plural is n and the noun for it, an s added past one: "1 call",
// "2 calls".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Ordinal writes n as an English ordinal: "2nd", "3rd", "11th", "21st".
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// Package human writes numbers, sizes, money and times for people, the same
// way in every front end, and reads sizes people write.
package human

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Group writes n with comma thousands separators: 1234567 → "1,234,567",
// as Java's %,d does in an English locale.
func Group(n int64) string { return string(AppendGroup(nil, n)) }

// AppendGroup appends n to dst as Group formats it.
func AppendGroup(dst []byte, n int64) []byte {
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
	return int64(f * float64(mult)), nil
}

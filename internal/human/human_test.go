package human

import (
	"math"
	"testing"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"24KiB": 24576, "80000": 80000, "50kB": 50000, "1.5MiB": 1572864, "80,000": 80000, "2 KiB": 2048, "9007199254740992": 1 << 53, "8GiB": 8 << 30,
		"1_048_576": 1 << 20, "1,000.5KiB": 1_024_512, "0": 0, "0.0": 0, "0.5KiB": 512} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-5", "5 parsecs", "99999999999999999999", "9007199254740993", "8388609GiB", "1e30", "NaN",
		"1,5KiB", "0,5KiB", ",,,8,,", "80,00", "1,0000", "8.5,5", "0.4", "0.5B"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) should fail", bad)
		}
	}
}

// TestFormatters pins every writer by hand, at the edges of its ranges.
func TestFormatters(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500",
		-999: "-999", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 60 * 1024: "60.0 KiB", 5 << 20: "5.0 MiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	v := 0.0123456789
	if got := USD(&v); got != "$0.012346" {
		t.Errorf("USD = %q", got)
	}
	for in, want := range map[float64]string{0: "$0.000000", 24.8412345: "$24.841234", 0.0000005: "$0.000000", 1e6: "$1000000.000000", -0.130866: "-$0.130866", -0.0000004: "$0.000000"} {
		if got := USD(&in); got != want {
			t.Errorf("USD(%v) = %q, want %q", in, got, want)
		}
	}
	if got := USD(nil); got != "unknown" {
		t.Errorf("USD(nil) = %q", got)
	}

	for n, want := range map[int64]string{0: "0", 9999: "9,999", 10_000: "10.0k", 31_949: "31.9k", 999_949: "999.9k",
		1_240_000: "1.24M", -16_300: "-16.3k", 999_950: "1.00M", 99_994_999: "99.99M", 99_995_000: "100.0M",
		999_949_999: "999.9M", 999_950_000: "1.00B", -4_741_990_000: "-4.74B", math.MaxInt64: "9.22E", math.MinInt64: "-9.22E"} {
		if got := Compact(n); got != want {
			t.Errorf("Compact(%d) = %q, want %q", n, got, want)
		}
	}
	for in, want := range map[float64]string{0.0722: "$0.0722", 0.99994: "$0.9999", 3.14159: "$3.14", 999.994: "$999.99",
		1202.6: "$1,203", 1_000_000: "$1,000,000", 999_999_999_999_999: "$999,999,999,999,999",
		// Past what counts to the dollar in an int64, where it wrapped to
		// $-9,223,372,036,854,775,808.
		1e15: "$1e+15", 1e308: "$1e+308", math.Inf(1): "?", math.NaN(): "?",
		// A saving below zero: a policy that made the prompt longer.
		-0.0123: "-$0.0123", -0.00001: "$0.0000", -3.14159: "-$3.14", -1202.6: "-$1,203", math.Inf(-1): "?"} {
		if got := Money(&in); got != want {
			t.Errorf("Money(%v) = %q, want %q", in, got, want)
		}
	}
	if got := Money(nil); got != "?" {
		t.Errorf("Money(nil) = %q", got)
	}
	for n, want := range map[int64]string{0: "0B", 999: "999B", 1023: "1023B", 1024: "1.0K", 70_611: "69.0K", 1000*1024 - 52: "999.9K", 1_023_949: "1.0M",
		1000 * 1024: "1.0M", 1_258_291: "1.2M"} {
		if got := ShortBytes(n); got != want {
			t.Errorf("ShortBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for _, tt := range []struct {
		before, after float64
		want          string
	}{{0.3983, 0.2542, "−36.2%"}, {2, 3, "+50.0%"}, {2, 2, "0.0%"}, {10000, 10000.001, "0.0%"}, {0, 1, "0%"}, {-1, 0, "0%"}} {
		if got := Change(tt.before, tt.after); got != tt.want {
			t.Errorf("Change(%v, %v) = %q, want %q", tt.before, tt.after, got, tt.want)
		}
	}
	for n, want := range map[int64]string{31_949: "−31.9k", 0: "0", -1_200: "+1,200"} {
		if got := Less(n, Compact); got != want {
			t.Errorf("Less(%d, Compact) = %q, want %q", n, got, want)
		}
	}
}

// TestMoneyLike: the figures of a line round alike, to the cents of its
// largest.
func TestMoneyLike(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		v, like float64
		want    string
	}{
		{0.1827, 12.11, "$0.18"},
		{11.9273, 12.11, "$11.93"},
		{0.0023, 5, "<$0.01"},
		{0, 5, "$0.00"},
		{0.1827, 0.5, "$0.1827"},
		{0.0225, 12345.678, "$0.02"},
		{12345.678, 12345.678, "$12,346"},
		{-0.1827, 12.11, "-$0.18"},
		{-0.0023, 5, "-<$0.01"},
	} {
		if got := MoneyLike(usd(tt.v), tt.like); got != tt.want {
			t.Errorf("MoneyLike(%v, like %v) = %q, want %q", tt.v, tt.like, got, tt.want)
		}
	}
	if got := MoneyLike(nil, 3); got != "?" {
		t.Errorf("MoneyLike(nil) = %q", got)
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 101: "101st", 111: "111th"} {
		if got := Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

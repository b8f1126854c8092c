package human

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"24KiB": 24576, "80000": 80000, "50kB": 50000, "1.5MiB": 1572864, "80,000": 80000, "2 KiB": 2048, "9007199254740992": 1 << 53, "8GiB": 8 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "lots", "-5", "5 parsecs", "99999999999999999999", "9007199254740993", "8388609GiB", "1e30", "NaN"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) should fail", bad)
		}
	}
}

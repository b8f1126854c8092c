package tokens

import (
	"strings"
	"testing"
)

func TestVocabBuildRejectsBadRanks(t *testing.T) {
	bytes := func() map[string]int {
		m := map[string]int{}
		for b := 0; b < 256; b++ {
			m[string([]byte{byte(b)})] = b
		}
		return m
	}
	tests := []struct {
		name   string
		edit   func(map[string]int)
		errHas string
	}{
		{"missing byte", func(m map[string]int) { delete(m, "a") }, "no rank"},
		{"rank twice", func(m map[string]int) { m["ab"] = 5 }, "twice"},
		{"rank too large", func(m map[string]int) { m["ab"] = 1 << rankBits }, "out of range"},
		{"negative rank", func(m map[string]int) { m["ab"] = -1 }, "out of range"},
		{"empty token", func(m map[string]int) { m[""] = 300 }, "out of range"},
	}
	for _, tc := range tests {
		m := bytes()
		tc.edit(m)
		var v vocab
		if err := v.build(m); err == nil || !strings.Contains(err.Error(), tc.errHas) {
			t.Errorf("%s: build error %v, want one saying %q", tc.name, err, tc.errHas)
		}
	}
	var v vocab
	if err := v.build(bytes()); err != nil {
		t.Errorf("build of the 256 bytes: %v", err)
	}
}

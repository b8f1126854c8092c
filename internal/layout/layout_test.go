package layout

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type col struct {
	name     string
	width    int
	priority int
	grows    bool
}

func TestFit(t *testing.T) {
	spec := func(c *col) (*int, int, bool) { return &c.width, c.priority, c.grows }
	all := func() []col {
		return []col{{"a", 10, 0, true}, {"b", 5, 2, false}, {"c", 5, 1, false}, {"d", 3, 2, false}}
	}
	for _, tt := range []struct {
		width, gap int
		want       []col
	}{
		// 10+5+5+3 and three gaps of 1: 26 fits 30, a takes the 4 left.
		{30, 1, []col{{"a", 14, 0, true}, {"b", 5, 2, false}, {"c", 5, 1, false}, {"d", 3, 2, false}}},
		// 25 < 26: b goes (priority 2, the first of the two), 20 fits, a takes 5.
		{25, 1, []col{{"a", 15, 0, true}, {"c", 5, 1, false}, {"d", 3, 2, false}}},
		// gap 2: 10+5+3 and two gaps is 22 > 20: d goes too, 17 fits.
		{20, 2, []col{{"a", 13, 0, true}, {"c", 5, 1, false}}},
		// Nothing fits: one column stays.
		{3, 1, []col{{"a", 10, 0, true}}},
	} {
		if diff := cmp.Diff(tt.want, Fit(all(), tt.width, tt.gap, spec), cmp.AllowUnexported(col{})); diff != "" {
			t.Errorf("width %d gap %d (-want +got)\n%s", tt.width, tt.gap, diff)
		}
	}
}

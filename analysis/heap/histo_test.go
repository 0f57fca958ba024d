package heap

import "testing"

// TestHistoShallowPercent: a row's share is of the shallow bytes of every
// matched class (Total), also of those Top left out; none of an empty
// histogram.
func TestHistoShallowPercent(t *testing.T) {
	h := Histo{Rows: []HistoRow{{Class: "byte[]", ShallowBytes: 600}, {Class: "java.lang.String", ShallowBytes: 240}},
		MatchedClasses: 3, Total: HistoRow{ShallowBytes: 1200}}
	for i, want := range []float64{50, 20} {
		if got := h.ShallowPercent(h.Rows[i]); got != want {
			t.Errorf("%s: %v%%, want %v%%", h.Rows[i].Class, got, want)
		}
	}
	if got := (Histo{}).ShallowPercent(HistoRow{ShallowBytes: 16}); got != 0 {
		t.Errorf("share of an empty histogram %v%%, want 0", got)
	}
}
